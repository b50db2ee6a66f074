"""The assembled hex graph: size, odd-r adjacency (RULINGS 1-4, 29-31), turned sections,
edge, sectors and lines, and the bitset tables derived from the graph."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import networkx as nx
import pytest
from conftest import ROOT, scaled, shipped
from hypothesis import given, settings
from hypothesis import strategies as st

from kbdsl.board import Placed, assemble, parse_hex
from kbdsl.caches import KEPT, ByOwner
from kbdsl.errors import SetupError
from kbdsl.game import Game
from kbdsl.position import Board, Layout
from kbdsl.tables import Tables

SECTIONS = ["barn", "farm", "harbor", "oasis", "oracle", "paddock", "tavern", "tower"]


def rulings_2(r: int, c: int, rows: int = 20, cols: int = 20) -> set[tuple[int, int]]:
    """Neighbours of (r, c) exactly as RULINGS 2 words them, clipped to the board."""
    if r % 2 == 0:
        cand = [(r, c - 1), (r, c + 1), (r - 1, c - 1), (r - 1, c), (r + 1, c - 1), (r + 1, c)]
    else:
        cand = [(r, c - 1), (r, c + 1), (r - 1, c), (r - 1, c + 1), (r + 1, c), (r + 1, c + 1)]
    return {(a, b) for a, b in cand if 0 <= a < rows and 0 <= b < cols}


def rc(name: str) -> tuple[int, int]:
    r, c = name.split(":")[-1].split(",")
    return int(r), int(c)


def board(rules, sections, options=None) -> Board:
    opts = rules.option_defaults() | dict(options or {})
    return Board(rules, Layout.of(rules, sections), opts)


def nbr_names(g: nx.Graph, name: str) -> set[str]:
    return set(g.neighbors(name))


def letter_at(rules, section: str, r: int, c: int) -> tuple[str, str]:
    """(kind, name) of the grid letter of `section` at local (r, c), straight from the rule file."""
    return rules.legend[rules.sections[section].rows[r][c].letter]


@pytest.fixture(scope="module")
def island_rules():
    return shipped("island")


@pytest.fixture(scope="module")
def first(base_rules) -> Board:
    return board(base_rules, ["oracle", "paddock", "harbor", "farm"])


# ---- size and adjacency ------------------------------------------------------


def test_main_board_has_400_hexes_named_row_col(first):
    g = first.graph
    assert g.number_of_nodes() == 400
    assert set(g.nodes) == {f"{r},{c}" for r in range(20) for c in range(20)}
    assert first.tables.n == 400
    # ids: row-major order on the primary board
    assert first.tables.ids[:3] == ["0,0", "0,1", "0,2"] and first.tables.ids[-1] == "19,19"


def test_neighbour_counts(first):
    g = first.graph
    deg = dict(g.degree())
    # the corners: odd-r makes (0,0) and (19,19) the sharp ones
    assert (deg["0,0"], deg["0,19"], deg["19,0"], deg["19,19"]) == (2, 3, 3, 2)
    # top and bottom rows inside: 4; left column: odd rows 5, even rows 3; right column the reverse
    assert {deg[f"0,{c}"] for c in range(1, 19)} == {4}
    assert {deg[f"19,{c}"] for c in range(1, 19)} == {4}
    assert {deg[f"{r},0"] for r in range(1, 19, 2)} == {5}
    assert {deg[f"{r},0"] for r in range(2, 19, 2)} == {3}
    assert {deg[f"{r},19"] for r in range(2, 19, 2)} == {5}
    assert {deg[f"{r},19"] for r in range(1, 19, 2)} == {3}
    assert all(deg[f"{r},{c}"] == 6 for r in range(1, 19) for c in range(1, 19))
    assert Counter(deg.values()) == {6: 324, 4: 36, 5: 18, 3: 20, 2: 2}
    assert g.number_of_edges() == sum(deg.values()) // 2 == 1121


@pytest.mark.parametrize(
    "name, expected",
    [
        # inside a section, even and odd rows
        ("4,4", {"4,3", "4,5", "3,3", "3,4", "5,3", "5,4"}),
        ("5,4", {"5,3", "5,5", "4,4", "4,5", "6,4", "6,5"}),
        # the centre, where all four sections meet
        ("9,9", {"9,8", "9,10", "8,9", "8,10", "10,9", "10,10"}),
        ("10,9", {"10,8", "10,10", "9,8", "9,9", "11,8", "11,9"}),
        ("10,10", {"10,9", "10,11", "9,9", "9,10", "11,9", "11,10"}),
        ("9,10", {"9,9", "9,11", "8,10", "8,11", "10,10", "10,11"}),
        # across the vertical seam (columns 9 | 10) and the horizontal one (rows 9 / 10)
        ("4,9", {"4,8", "4,10", "3,8", "3,9", "5,8", "5,9"}),
        ("3,9", {"3,8", "3,10", "2,9", "2,10", "4,9", "4,10"}),
        ("9,4", {"9,3", "9,5", "8,4", "8,5", "10,4", "10,5"}),
        ("10,15", {"10,14", "10,16", "9,14", "9,15", "11,14", "11,15"}),
        # corners and borders
        ("0,0", {"0,1", "1,0"}),
        ("19,19", {"19,18", "18,19"}),
        ("0,19", {"0,18", "1,18", "1,19"}),
        ("19,0", {"19,1", "18,0", "18,1"}),
        ("7,0", {"7,1", "6,0", "6,1", "8,0", "8,1"}),
        ("8,19", {"8,18", "7,18", "7,19", "9,18", "9,19"}),
    ],
)
def test_hand_picked_neighbours(first, name, expected):
    assert nbr_names(first.graph, name) == expected
    assert {f"{a},{b}" for a, b in rulings_2(*rc(name))} == expected


@pytest.mark.parametrize(
    "sections",
    [
        ["oracle", "paddock", "harbor", "farm"],
        ["tavern@180", "barn", "oasis@180", "tower@180"],
        ["farm@180", "oracle@180", "paddock@180", "harbor@180"],
    ],
)
def test_every_hex_follows_rulings_2(base_rules, sections):
    g = board(base_rules, sections).graph
    for name in g:
        assert nbr_names(g, name) == {f"{a},{b}" for a, b in rulings_2(*rc(name))}, name


def test_seam_hexes_belong_to_the_right_sections(first):
    nodes = first.graph.nodes
    assert [nodes[h]["section"] for h in ("9,9", "9,10", "10,9", "10,10")] == ["oracle", "paddock", "harbor", "farm"]
    assert [nodes[h]["section"] for h in ("0,0", "0,19", "19,0", "19,19")] == ["oracle", "paddock", "harbor", "farm"]
    # seam-crossing edges exist in all four directions
    for a, b in [("9,9", "9,10"), ("9,9", "10,9"), ("9,9", "10,10"), ("10,10", "9,10"), ("4,9", "4,10")]:
        assert first.graph.has_edge(a, b), (a, b)


# ---- turned sections (RULINGS 1) ---------------------------------------------


@pytest.mark.parametrize("slot", range(4))
def test_turned_section_maps_r_c_to_9_minus(base_rules, slot):
    names = ["oracle", "paddock", "harbor", "farm"]
    turned = [f"{n}@180" if i == slot else n for i, n in enumerate(names)]
    g = board(base_rules, turned).graph
    base_r, base_c = (slot // 2) * 10, (slot % 2) * 10
    sec = names[slot]
    for lr in range(10):
        for lc in range(10):
            kind, what = letter_at(base_rules, sec, 9 - lr, 9 - lc)
            a = g.nodes[f"{base_r + lr},{base_c + lc}"]
            assert a["section"] == sec
            assert (a["terrain"] if kind == "terrain" else a["location"]) == what, (lr, lc)
            assert (a["location"] is None) == (kind == "terrain")


def test_unturned_section_is_copied_as_written(first, base_rules):
    for slot, sec in enumerate(["oracle", "paddock", "harbor", "farm"]):
        for lr in range(10):
            for lc in range(10):
                kind, what = letter_at(base_rules, sec, lr, lc)
                a = first.graph.nodes[f"{(slot // 2) * 10 + lr},{(slot % 2) * 10 + lc}"]
                assert (a["terrain"] if kind == "terrain" else a["location"]) == what


def test_turned_oracle_hand_picked(base_rules):
    # the Oracle section's location hex is written at local (3,7); turned it lies at (6,2)
    plain = board(base_rules, ["oracle", "paddock", "harbor", "farm"]).graph.nodes
    turned = board(base_rules, ["oracle@180", "paddock", "harbor", "farm"]).graph.nodes
    assert plain["3,7"]["location"] == "oracle" and plain["6,2"]["location"] is None
    assert turned["6,2"]["location"] == "oracle" and turned["3,7"]["location"] is None
    # the corner cells swap: (0,0) shows what was written at (9,9), and back
    assert turned["0,0"]["terrain"] == plain["9,9"]["terrain"]
    assert turned["9,9"]["terrain"] == plain["0,0"]["terrain"]
    # other sections are unaffected
    assert all(turned[f"{r},{c}"] == plain[f"{r},{c}"] for r in range(20) for c in range(20) if r >= 10 or c >= 10)


# ---- edge, sectors, lines (RULINGS 3, 4) -------------------------------------


def test_edge_is_the_outer_ring_only(first):
    g = first.graph
    ring = {f"{r},{c}" for r in range(20) for c in range(20) if r in (0, 19) or c in (0, 19)}
    assert {n for n in g if g.nodes[n]["edge"]} == ring
    assert len(ring) == 76
    for seam in ("9,9", "10,10", "9,10", "10,9", "4,9", "4,10", "9,4", "10,4"):
        assert not g.nodes[seam]["edge"], seam
    assert first.tables.names(first.tables.edge) == [h for h in first.tables.ids if h in ring]


def test_buildable_edge_hexes_of_the_oracle_paddock_harbor_farm_layout(first):
    t = first.tables
    assert (t.edge & t.buildable).bit_count() == 55


def test_buildable_matches_terrain_flags(first, base_rules):
    g = first.graph
    for n in g:
        a = g.nodes[n]
        flags = base_rules.terrains[a["terrain"]].flags if a["terrain"] else frozenset()
        assert a["buildable"] == ("buildable" in flags), n
        assert (a["special"] is not None) == (a["location"] is not None or "special" in flags), n


def test_sectors_are_the_four_sections(first):
    t = first.tables
    assert t.sector_ids == ["oracle", "paddock", "harbor", "farm"]
    assert [m.bit_count() for m in t.sectors] == [100] * 4
    union = 0
    for m in t.sectors:
        assert not union & m
        union |= m
    assert union == t.all
    for i, sid in enumerate(t.sector_ids):
        for h in t.names(t.sectors[i]):
            r, c = rc(h)
            assert ["oracle", "paddock", "harbor", "farm"][(r // 10) * 2 + c // 10] == sid


def test_lines_are_full_rows(first):
    t = first.tables
    assert len(t.lines) == 20 and t.line_ids == [str(r) for r in range(20)]
    for r, m in enumerate(t.lines):
        assert t.names(m) == [f"{r},{c}" for c in range(20)]


def test_sectors_and_edge_are_data(rules_copy):
    text = rules_copy.edit("game.yaml", "sectors: true", "sectors: false")
    assert "edge: true" in text
    rules_copy.edit("game.yaml", "edge: true", "edge: false")
    b = board(rules_copy.load(), ["oracle", "paddock", "harbor", "farm"])
    assert {b.graph.nodes[n]["sector"] for n in b.graph} == {None}
    assert b.tables.sectors == [] and b.tables.edge == 0
    assert len(b.tables.lines) == 20


# ---- a detached board (RULINGS 29-31) ----------------------------------------


def test_island_is_detached_and_named_with_a_prefix(island_rules):
    b = board(island_rules, {"main": ["oracle", "paddock", "harbor", "farm"], "island": ["island-rope-bridge"]})
    g = b.graph
    isl = [n for n in g if g.nodes[n]["board"] == "island"]
    assert len(isl) == 35 and all(n.startswith("island:") for n in isl)
    assert g.number_of_nodes() == 435
    # no edge between the boards
    assert not any(g.nodes[a]["board"] != g.nodes[b2]["board"] for a, b2 in g.edges)
    assert nx.number_connected_components(g) == 2
    # odd-r adjacency holds on the island in its own coordinates
    for n in isl:
        assert {rc(m) for m in g.neighbors(n)} == rulings_2(*rc(n), rows=5, cols=7), n
    # not a sector, lines of its own, not the edge by default
    assert {g.nodes[n]["sector"] for n in isl} == {None}
    assert b.tables.sector_ids == ["oracle", "paddock", "harbor", "farm"]
    assert b.tables.line_ids[20:] == [f"island:{r}" for r in range(5)]
    assert [m.bit_count() for m in b.tables.lines[20:]] == [7] * 5
    assert not any(g.nodes[n]["edge"] for n in isl)
    # primary-board hexes come first in the table order
    assert b.tables.ids[:400] == [f"{r},{c}" for r in range(20) for c in range(20)]


def test_island_edge_option(island_rules):
    b = board(
        island_rules,
        {"main": ["oracle", "paddock", "harbor", "farm"], "island": ["island-tree-house"]},
        {"island-edge": True},
    )
    g = b.graph
    isl_edge = {n for n in g if g.nodes[n]["board"] == "island" and g.nodes[n]["edge"]}
    assert isl_edge == {f"island:{r},{c}" for r in range(5) for c in range(7) if r in (0, 4) or c in (0, 6)}
    assert b.tables.edge.bit_count() == 76 + 20


# ---- parsing hex names and setup errors ---------------------------------------


@pytest.mark.parametrize(
    "text, name",
    [("3,4", "3,4"), ("(3, 4)", "3,4"), (" 3 , 4 ", "3,4"), ("3 4", "3,4"), ("19,19", "19,19"), ("0,0", "0,0")],
)
def test_parse_hex(first, text, name):
    assert parse_hex(text, first.graph) == name
    assert first.hex(text) == name


@pytest.mark.parametrize("text", ["3;4", "x", "", "20,0", "0,20", "-1,0", "island:1,1", "3,4,5"])
def test_parse_hex_rejects(first, text):
    with pytest.raises(ValueError):
        parse_hex(text, first.graph)
    with pytest.raises(SetupError):
        first.hex(text)


def test_island_hex_names(island_rules):
    b = board(island_rules, {"main": ["oracle", "paddock", "harbor", "farm"], "island": ["island-rope-bridge"]})
    assert b.hex("island:2,3") == "island:2,3"
    assert b.hex("island: (2, 3)") == "island:2,3"
    with pytest.raises(SetupError):
        b.hex("island:5,0")


@pytest.mark.parametrize(
    "sections, message",
    [
        (["oracle", "paddock", "harbor"], "takes 4 section"),
        (["oracle", "paddock", "harbor", "farm", "barn"], "takes 4 section"),
        (["oracle", "oracle", "harbor", "farm"], "each section may be used once"),
        (["oracle", "paddock", "harbor", "moon"], "no section 'moon'"),
        (["oracle@90", "paddock", "harbor", "farm"], "only a turn of 180 degrees"),
    ],
)
def test_bad_layouts(base_rules, sections, message):
    with pytest.raises(SetupError, match=message):
        board(base_rules, sections)


def test_island_cannot_be_turned_or_used_on_main(island_rules):
    with pytest.raises(SetupError, match="cannot be turned"):
        board(island_rules, {"main": ["oracle", "paddock", "harbor", "farm"], "island": ["island-rope-bridge@180"]})
    with pytest.raises(SetupError, match="no section 'island-rope-bridge' for board 'main'"):
        board(island_rules, {"main": ["oracle", "paddock", "harbor", "island-rope-bridge"]})


def test_placed_parse_and_str():
    assert Placed.parse("oracle@180") == Placed("oracle", True)
    assert Placed.parse("oracle") == Placed("oracle", False)
    assert str(Placed("oracle", True)) == "oracle@180"
    assert Placed.parse(str(Placed("farm", True))) == Placed("farm", True)


# ---- the graph is the source of truth for the tables ---------------------------


def check_tables(g: nx.Graph, t: Tables) -> None:
    assert sorted(t.ids) == sorted(g.nodes) and len(t.ids) == t.n
    assert all(t.index[name] == i for i, name in enumerate(t.ids))
    for i, name in enumerate(t.ids):
        assert {t.ids[j] for j in t.nbr[i]} == nbr_names(g, name), name
        assert t.nbr_mask[i] == sum(1 << j for j in t.nbr[i])
        # the six direction steps: each a neighbour (or off-board), opposite directions undo each other
        stepped = {t.steps[d][i] for d in range(6)} - {-1}
        assert stepped == set(t.nbr[i]), name
        for d in range(6):
            j = t.steps[d][i]
            if j >= 0:
                assert t.steps[(d + 3) % 6][j] == i
    for attr, mask in (("buildable", t.buildable), ("edge", t.edge)):
        assert set(t.names(mask)) == {n for n in g if g.nodes[n][attr]}, attr
    assert set(t.names(t.location)) == {n for n in g if g.nodes[n]["location"]}
    assert set(t.names(t.special)) == {n for n in g if g.nodes[n]["special"]}
    for terrain, mask in t.terrain.items():
        assert set(t.names(mask)) == {n for n in g if g.nodes[n]["terrain"] == terrain}
    for tile, mask in t.locations.items():
        assert set(t.names(mask)) == {n for n in g if g.nodes[n]["location"] == tile}
    assert [t.location_of[t.index[n]] for n in t.ids] == [g.nodes[n]["location"] for n in t.ids]
    assert [t.terrain_at(i) for i in range(t.n)] == [g.nodes[n]["terrain"] for n in t.ids]
    assert t.all == (1 << t.n) - 1
    # groups in the order a walk over the index meets them: sectors, lines and sides of the edge
    for attr, ids, masks in (("sector", t.sector_ids, t.sectors), ("line", t.line_ids, t.lines)):
        assert ids == list(dict.fromkeys(g.nodes[n][attr] for n in t.ids if g.nodes[n][attr] is not None)), attr
        assert [set(t.names(m)) for m in masks] == [{n for n in g if g.nodes[n][attr] == k} for k in ids], attr
    assert t.side_ids == list(dict.fromkeys(s for n in t.ids for s in g.nodes[n]["sides"]))
    assert [set(t.names(m)) for m in t.sides] == [{n for n in g if s in g.nodes[n]["sides"]} for s in t.side_ids]
    # fields: the connected parts of each non-special terrain, as networkx finds them
    plain = {}
    for n in g:
        if g.nodes[n]["terrain"] and not g.nodes[n]["special"]:
            plain.setdefault(g.nodes[n]["terrain"], set()).add(n)
    found = [frozenset(c) for hexes in plain.values() for c in nx.connected_components(g.subgraph(hexes))]
    assert [frozenset(t.names(m)) for m in t.fields] == sorted(found, key=lambda c: min(t.index[n] for n in c))


layouts = (
    st.lists(st.sampled_from(SECTIONS), min_size=4, max_size=4, unique=True)
    .flatmap(lambda names: st.tuples(*[st.sampled_from([n, f"{n}@180"]) for n in names]))
    .map(list)
)


@settings(max_examples=scaled(25))
@given(sections=layouts)
def test_tables_agree_with_graph_for_random_layouts(sections):
    b = board(shipped("base"), sections)
    check_tables(b.graph, b.tables)
    for name in b.graph:
        assert nbr_names(b.graph, name) == {f"{a},{c}" for a, c in rulings_2(*rc(name))}


def test_tables_follow_an_edited_graph(base_rules):
    g = assemble(
        base_rules,
        Layout.of(base_rules, ["oracle", "paddock", "harbor", "farm"]).as_dict(),
        base_rules.option_defaults(),
    )
    g.remove_edge("9,9", "10,10")
    g.nodes["5,5"]["buildable"] = False
    t = Tables.from_graph(g)
    assert "10,10" not in {t.ids[j] for j in t.nbr[t.index["9,9"]]}
    assert not (t.buildable >> t.index["5,5"]) & 1
    for i, name in enumerate(t.ids):
        assert {t.ids[j] for j in t.nbr[i]} == nbr_names(g, name)


def test_island_tables_agree_with_graph(island_rules):
    b = board(
        island_rules,
        {"main": ["tower@180", "barn", "oasis", "tavern@180"], "island": ["island-tree-house"]},
        {"island-edge": True},
    )
    check_tables(b.graph, b.tables)


def test_games_of_one_layout_share_its_board_and_others_get_their_own(base_rules):
    from kbdsl.game import Game

    a = Game.new(base_rules, players=2, preset="first-game", seed=1)
    b = Game.new(base_rules, players=3, preset="first-game", seed=2)
    assert a.board is b.board  # assembled once: boards are never changed after assembly
    other = Game.new(base_rules, players=2, preset="first-game", options={"lords-presence-required": True})
    assert other.board is not a.board  # options may change a board (its edge, its sectors)
    turned = Game.new(base_rules, players=2, sections=["tavern@180", "paddock", "oasis", "farm"])
    assert turned.board is not a.board
    fresh = assemble(base_rules, turned.setup.layout.as_dict(), turned.options)
    assert nx.utils.graphs_equal(fresh, turned.board.graph)
    assert dict(fresh.nodes(data=True)) == dict(turned.board.graph.nodes(data=True))


def test_shifts_move_a_hex_set_one_step_as_the_graph_does(first):
    t = first.tables
    for d, step in enumerate(t.steps):
        for i in range(0, t.n, 7):
            assert t.shifts[d](1 << i) == (1 << step[i] if step[i] >= 0 else 0)
        everything = t.shifts[d](t.all)
        assert everything == sum(1 << j for j in step if j >= 0)


def test_assembly_caches_give_the_graph_of_a_cold_start(base_rules):
    """Assembly keeps the board's shape and each section's cells (kbdsl.board._GEOMETRY, _CELLS),
    and the tables their compiled parts (kbdsl.tables._SHAPES, _PARTS): a layout assembled with
    warm caches is the same graph, node and edge order included, with the same tables, as with
    empty ones, and the caches stay bounded however many sections and layouts pass through."""
    from kbdsl import board, tables as compiled

    layouts = [
        Layout.of(base_rules, [f"{a}@180", b, c, d])
        for a, b, c, d in [
            ("tavern", "paddock", "oasis", "farm"),
            ("oracle", "farm", "tower", "harbor"),
            ("barn", "tavern", "harbor", "oasis"),
        ]
    ]

    def graph(layout):
        return assemble(base_rules, layout.as_dict(), {})

    def tables(layout):
        return compiled.layout_tables(base_rules, layout.as_dict(), {})

    warm = [(graph(x), tables(x)) for x in layouts]
    for layout, (g, t) in zip(layouts, warm, strict=True):
        for cache in (board._GEOMETRY, board._CELLS, compiled._SHAPES, compiled._PARTS):
            cache.clear()
        cold = graph(layout)
        assert list(cold.nodes(data=True)) == list(g.nodes(data=True))
        assert list(cold.edges) == list(g.edges)
        same_tables(tables(layout), t)
    for k in range(KEPT + 10):
        board._section_cells(base_rules, base_rules.sections["farm"], bool(k % 2))
        board._CELLS.put(base_rules, (-k - 1, False), ())  # other sections' entries
    assert len(board._CELLS) <= KEPT


# ---- tables composed from compiled parts, the graph assembled when asked for -----

RULE_SETS = sorted(str(p.parent.relative_to(ROOT / "rules")) for p in (ROOT / "rules").rglob("game.yaml"))


def same_tables(a: Tables, b: Tables) -> None:
    """Every field but the lazily filled caches equal, the order of the dicts' keys included (hot loops
    iterate over them); the shift functions move every hex alike (a shift of a set is the union of its
    hexes' shifts), and the grow functions give every set the same neighbours (their loop and shifts)."""
    for f in [f.name for f in dataclasses.fields(Tables) if f.name not in ("cache", "shape_cache", "shifts", "grow")]:
        x, y = getattr(a, f), getattr(b, f)
        assert (list(x.items()), type(x)) == (list(y.items()), type(y)) if isinstance(x, dict) else x == y, f
    assert len(a.shifts) == len(b.shifts) == 6
    for d in range(6):
        assert [a.shifts[d](1 << i) for i in range(a.n)] == [b.shifts[d](1 << i) for i in range(b.n)], d
    masks = [1 << i for i in range(a.n)] + [a.all, a.all // 3, a.all // 7]
    assert [a.grow(m) for m in masks] == [b.grow(m) for m in masks]


@pytest.mark.parametrize("name", RULE_SETS)
def test_composed_tables_are_those_of_the_assembled_graph(name):
    """A board's tables are composed from its shape and each section as placed in its slot, each
    compiled once (kbdsl.tables.layout_tables): for random layouts of every rule set (turned
    sections, a second board, random options, the edge option of the Island among them) they are
    the tables compiled from the assembled graph, field by field, and the graph a board assembles
    when first asked for is that graph."""
    rules = shipped(name)
    rng = random.Random(name)
    for _ in range(scaled(12)):
        options = {o: rng.random() < 0.5 for o in rules.options}
        game = Game.new(rules, players=rules.players[0], seed=rng.randrange(10**9), options=options)
        layout, opts = game.setup.layout, game.options
        b = Board(rules, layout, opts)
        assert "graph" not in vars(b)  # not assembled yet
        eager = assemble(rules, layout.as_dict(), opts)
        same_tables(b.tables, Tables.from_graph(eager))
        check_tables(eager, b.tables)
        assert list(b.graph.nodes(data=True)) == list(eager.nodes(data=True))
        assert list(b.graph.edges) == list(eager.edges) and b.graph.graph == eager.graph


def test_random_games_and_simulations_never_assemble_the_graph(monkeypatch):
    """Random games, the greedy bot and `simulate` play on the tables alone."""
    from kbdsl import position
    from kbdsl.simulate import Plan, play_one

    def refuse(*args, **kwargs):
        raise AssertionError("the board's graph was assembled")

    monkeypatch.setattr(position, "assemble", refuse)
    monkeypatch.setattr(position, "_BOARDS", ByOwner(8))  # no board whose graph was built already
    for name in RULE_SETS:
        rules = shipped(name)
        plan = Plan(str(ROOT / "rules" / name), rules.players[0], ("random", "greedy"), seed=11)
        row = play_one(plan, 0)
        assert len(row["totals"]) == rules.players[0]
        with pytest.raises(AssertionError, match="graph was assembled"):
            _ = Game.new(rules, seed=12).board.graph  # the guard is in place
