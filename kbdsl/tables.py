"""Bitset tables compiled from hex graphs (kbdsl.board): what the hot loops read, as Python ints.

`Tables.from_graph` compiles any hex graph. It is composed of two halves, each compiled from a
graph: `Shape` (the index, adjacency, direction steps, edge, lines and sides: where hexes lie and
which touch) and `Part` (what some hexes hold: terrain, locations, flags, sectors, fields). A
board's tables are its shape's and its sections' parts, each compiled once from the graph of the
shape and of the section placed in its slot, and composed (`layout_tables`): a new combination of
known sections builds no graph.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kbdsl.bitset import bit_list, components, grower, off_axis, shift_table, shifter
from kbdsl.board import DIRECTIONS, Placed, placements, section_graph, shape_graph
from kbdsl.caches import ByOwner, trim
from kbdsl.ruleset import RuleSet

if TYPE_CHECKING:
    import networkx as nx


@dataclass
class Shape:
    """What of the tables depends only on where hexes lie and which touch: the index (primary board
    first, then by board, row, col), neighbours, direction steps and shifts, edge, lines and sides.
    A cached shape's lists are shared by the tables of every board of that shape: never changed."""

    ids: list[str]
    index: dict[str, int]
    nbr: list[list[int]]
    nbr_mask: list[int]
    steps: list[list[int]]  # steps[d][i]: neighbour of i in direction d, or -1
    shifts: list[Callable[[int], int]]  # shifts[d](mask): mask moved one step in direction d
    grow: Callable[[int], int]  # grow(mask): every hex next to one of mask, as dilate (bitset.grower)
    six: int  # hexes with six neighbours (where a piece covering a hex and its neighbours fits)
    odd: int  # hexes with a neighbour in no direction, which masked shifts miss (bitset.off_axis)
    edge: int
    lines: list[int]
    line_ids: list[str]
    sides: list[int]
    side_ids: list[str]
    # what the engine derives from the shape alone, shared by the tables of every layout of it
    shape_cache: dict = field(default_factory=dict, kw_only=True)

    @classmethod
    def from_graph(cls, g: nx.Graph) -> Shape:
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
        edge = 0
        lines: dict[str, int] = {}
        sides: dict[str, int] = {}
        for i, name in enumerate(ids):
            a = attrs[name]
            if a["edge"]:
                edge |= 1 << i
            if a["line"] is not None:
                lines[a["line"]] = lines.get(a["line"], 0) | 1 << i
            for side in a.get("sides", ()):
                sides[side] = sides.get(side, 0) | 1 << i
        shifts = [shifter(shift_table(step)) for step in steps]  # kbdsl.bitset.shifter
        six = sum(1 << i for i, ns in enumerate(nbr) if len(ns) == 6)
        odd = sum(1 << i for i, x in enumerate(off_axis(steps, nbr_mask)) if x)
        return cls(
            ids,
            index,
            nbr,
            nbr_mask,
            steps,
            shifts,
            grower(steps, nbr_mask),
            six,
            odd,
            edge,
            list(lines.values()),
            list(lines),
            list(sides.values()),
            list(sides),
        )


@dataclass(frozen=True)
class Part:
    """What some hexes of a board hold (their terrain, locations, flags, sectors), compiled at the
    bit positions of a `Shape`; the fields (connected groups of one non-special terrain) of these
    hexes are `fields` if no hex outside touches them, else in `seams` with the hexes outside
    next to them, for `Tables.compose` to join with the fields of the parts around."""

    terrain: dict[str, int]
    locations: dict[str, int]  # tile name -> its location hexes
    location_at: tuple[tuple[int, str], ...]  # (index, tile) of each location hex
    buildable: int
    location: int
    special: int
    sectors: dict[str, int]
    fields: tuple[int, ...]
    seams: tuple[tuple[str, int, int], ...]  # (terrain, field, the hexes of other parts next to it)

    @classmethod
    def from_graph(cls, g: nx.Graph, shape: Shape) -> Part:
        index, grow = shape.index, shape.grow
        hexes = 0
        terrain: dict[str, int] = {}
        locations: dict[str, int] = {}
        sectors: dict[str, int] = {}
        plain: dict[str, int] = {}  # terrain -> its hexes that are not special
        flags = {"buildable": 0, "location": 0, "special": 0}
        location_at = []
        for name, a in g.nodes(data=True):
            i = index[name]
            bit = 1 << i
            hexes |= bit
            if a["terrain"]:
                terrain[a["terrain"]] = terrain.get(a["terrain"], 0) | bit
                if not a["special"]:
                    plain[a["terrain"]] = plain.get(a["terrain"], 0) | bit
            if a["location"]:
                locations[a["location"]] = locations.get(a["location"], 0) | bit
                flags["location"] |= bit
                location_at.append((i, a["location"]))
            if a["sector"] is not None:
                sectors[a["sector"]] = sectors.get(a["sector"], 0) | bit
            for f in ("buildable", "special"):
                if a[f]:
                    flags[f] |= bit
        fields, seams = [], []
        for t, m in plain.items():
            for c in components(m, grow):
                outside = grow(c) & ~hexes
                if outside:
                    seams.append((t, c, outside))
                else:
                    fields.append(c)
        return cls(
            terrain,
            locations,
            tuple(location_at),
            flags["buildable"],
            flags["location"],
            flags["special"],
            sectors,
            tuple(fields),
            tuple(seams),
        )


@dataclass
class Tables(Shape):
    """Bitset tables compiled from the graph; index i is the i-th node in `ids`: the fields of its
    `Shape` and what its hexes hold. Tables of boards of one shape share its lists (ids, nbr,
    steps, ...): nothing changes them."""

    terrain: dict[str, int]
    locations: dict[str, int]  # tile name -> its location hexes
    location_of: list[str | None]
    buildable: int
    location: int
    special: int
    all: int
    sectors: list[int]
    sector_ids: list[str]
    fields: list[int] = field(default_factory=list)  # each connected group of one non-special terrain
    cache: dict = field(default_factory=dict)
    n: int = field(init=False)  # number of hexes (a plain attribute: the hot loops read it)

    def __post_init__(self) -> None:
        self.n = len(self.ids)

    def names(self, mask: int) -> list[str]:
        return [self.ids[i] for i in bit_list(mask)]

    def terrain_at(self, i: int) -> str | None:
        """The terrain of hex i (None on a location hex): the first `terrain` names it under."""
        for name, m in self.terrain.items():  # (a loop, not next() over a generator: one frame)
            if m >> i & 1:
                return name
        return None

    @classmethod
    def from_graph(cls, g: nx.Graph) -> Tables:
        """The tables of any hex graph (its nodes with the attributes kbdsl.board.assemble gives)."""
        shape = Shape.from_graph(g)
        return cls.compose(shape, [Part.from_graph(g, shape)])

    @classmethod
    def compose(cls, shape: Shape, parts: Sequence[Part]) -> Tables:
        """The tables of a graph whose hexes are those of `shape`, each held by one of `parts`."""
        terrain: dict[str, int] = {}
        locations: dict[str, int] = {}
        sectors: dict[str, int] = {}
        location_of: list[str | None] = [None] * len(shape.ids)
        buildable = location = special = 0
        fields: list[int] = []
        open_: dict[str, list[int]] = {}  # terrain -> fields that reach a seam, joined as parts meet
        for p in parts:
            for into, more in ((terrain, p.terrain), (locations, p.locations), (sectors, p.sectors)):
                for k, m in more.items():
                    into[k] = into.get(k, 0) | m
            for i, tile in p.location_at:
                location_of[i] = tile
            buildable |= p.buildable
            location |= p.location
            special |= p.special
            fields.extend(p.fields)
            for t, m, outside in p.seams:
                kept = []
                for other in open_.get(t, ()):
                    if other & outside:
                        m |= other
                    else:
                        kept.append(other)
                kept.append(m)
                open_[t] = kept
        for joined in open_.values():
            fields.extend(joined)
        terrain, locations, sectors = (_by_first_hex(d) for d in (terrain, locations, sectors))
        return cls(
            **{name: getattr(shape, name) for name in _SHAPE_FIELDS},
            terrain=terrain,
            locations=locations,
            location_of=location_of,
            buildable=buildable,
            location=location,
            special=special,
            all=(1 << len(shape.ids)) - 1,
            sectors=list(sectors.values()),
            sector_ids=list(sectors),
            fields=sorted(fields, key=lambda m: m & -m),
        )


_SHAPE_FIELDS = tuple(f.name for f in dataclasses.fields(Shape))


def _by_first_hex(masks: dict[str, int]) -> dict[str, int]:
    """The masks ordered by their lowest hex: the order in which a walk over the index meets them."""
    return {k: masks[k] for k in sorted(masks, key=lambda k: masks[k] & -masks[k])}


def layout_tables(rules: RuleSet, layout: Mapping[str, Sequence[Placed]], options: Mapping[str, bool]) -> Tables:
    """`Tables.from_graph(assemble(rules, layout, options))` (kbdsl.board.assemble), composed from
    compiled parts kept in bounded caches: the boards' `Shape` (of `shape_graph`) and the `Part` of
    each section as placed in its slot (of `section_graph`). SetupError names a wrong layout."""
    boards = placements(rules, layout, options)
    key = tuple(b.shape for b in boards)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = Shape.from_graph(shape_graph(rules, boards))
        trim(_SHAPES, _SHAPES_KEPT)
    parts = []
    for b in boards:
        for k, sec in enumerate(b.sections):
            part_key = (key, b.board, k, id(sec), b.turned[k], b.sectors)
            part = _PARTS.get(rules, part_key)
            if part is None:
                part = _PARTS.put(rules, part_key, Part.from_graph(section_graph(rules, b, k), shape))
            parts.append(part)
    return Tables.compose(shape, parts)


#: Compiled parts, per layout shape (the key of each board's geometry) and per section placed in a
#: slot of one (per rule set, which keeps its sections alive: a section's id stays its own).
_SHAPES: dict[tuple, Shape] = {}
_SHAPES_KEPT = 16
_PARTS: ByOwner[Part] = ByOwner(1024)  # every section of a rule set in every slot, turned or not, a few times over
