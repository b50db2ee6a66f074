"""The SVG renderer: well-formed pictures with one hex shape per hex and one element per piece."""

import random
import xml.etree.ElementTree as ET

import pytest

from conftest import shipped
from kbdsl import resources
from kbdsl.errors import SetupError
from kbdsl.game import Game
from kbdsl.render import svg

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)  # raises on anything that is not well-formed XML


def hexes(root: ET.Element) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}polygon") if e.get("class", "").split()[:1] == ["hex"]]


def pieces(root: ET.Element) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}g") if e.get("class") == "piece"]


def played(game: Game, moves: int, seed: int = 1):
    state, rng = game.new_state(), random.Random(seed)
    for _ in range(moves):
        if state.over:
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_setup_has_one_hex_shape_per_board_hex():
    game = Game.new(shipped("base"), 3, preset="first-game")
    root = parse(svg.board(game))
    shapes = hexes(root)
    assert len(shapes) == 400
    assert {e.get("data-hex") for e in shapes} == set(game.board.graph)
    assert pieces(root) == []
    by_hex = {e.get("data-hex"): e for e in shapes}
    for name, attrs in game.board.graph.nodes(data=True):
        assert by_hex[name].get("data-terrain") == (attrs["terrain"] or "")
        assert by_hex[name].get("data-location") == (attrs["location"] or "")


def test_position_has_one_piece_per_piece_with_kind_and_owner():
    state = played(Game.new(shipped("base"), 4, seed=5), 120)
    root = parse(svg.board(state, coords=True, legend=True))
    drawn = sorted((e.get("data-hex"), e.get("data-kind"), e.get("data-player")) for e in pieces(root))
    expected = sorted((h, kind, "" if owner is None else str(owner)) for h, kind, owner in state.pieces())
    assert drawn == expected
    assert len(drawn) == sum(len(state.settlements(p)) for p in range(4)) > 0


def test_detached_board_is_drawn_beside_the_main_one():
    game = Game.new(shipped("island"), 2, seed=3)
    root = parse(svg.board(game))
    names = [e.get("data-hex") for e in hexes(root)]
    assert len(names) == game.tables.n
    island = [n for n in names if ":" in n]
    assert island and len(island) == sum(1 for n in game.board.graph if ":" in n)
    left = {e.get("data-hex"): min(float(p.split(",")[0]) for p in e.get("points").split()) for e in hexes(root)}
    assert min(left[n] for n in island) > max(left[n] for n in names if ":" not in n)


def test_highlighted_and_last_hexes_are_marked():
    state = played(Game.new(shipped("base"), 2, preset="first-game"), 3)
    targets = state.targets("build")
    last = state.settlements(0)
    root = parse(svg.board(state, hexes=targets, last=last))
    legal = {e.get("data-hex") for e in hexes(root) if "legal" in e.get("class").split()}
    assert legal == set(targets)
    marks = {e.get("data-hex") for e in root.iter() if e.get("class") == "last-mark"}
    assert marks == set(last)


def test_a_hex_not_on_the_board_is_refused():
    game = Game.new(shipped("base"), 2, preset="first-game")
    with pytest.raises(SetupError, match="no hex 30,30"):
        svg.board(game, hexes=["30,30"])


def test_terrains_get_distinct_safe_colours_and_size_scales():
    rules = shipped("base")
    fills = svg.terrain_fills(rules)
    assert set(fills) == set(rules.terrains)
    assert len(set(fills.values())) == len(fills)
    assert set(fills.values()) <= set(svg.SAFE_PALETTE)
    picture = svg.board(Game.new(rules, 2, preset="first-game"), size=600)
    assert parse(picture).get("width") == "600"
    assert picture._repr_svg_() == str(picture)


def test_each_piece_kind_of_a_game_has_its_own_outline_glyph_and_tooltip():
    from kbdsl.game import State

    game = Game.new(
        shipped("combined"),
        2,
        seed=1,
        sections=["lighthouse", "barracks", "city-hall", "quarry"],
        cards=["fishermen", "knights", "lords"],
    )
    state = State.arrange(
        game,
        [["6,5"], ["3,12"]],
        neutral={"wall": ["0,0"]},
        kinds={"warrior": [["1,11"], []], "ship": [["5,4"], []], "wagon": [[], ["18,0"]], "city-hall": [["11,2"], []]},
    )
    root = parse(svg.board(state))

    def outline(e: ET.Element) -> tuple:  # the shape relative to its first corner: the same for every hex
        xy = [tuple(map(float, p.split(","))) for p in next(e.iter(f"{NS}polygon")).get("points").split()]
        return tuple((round(x - xy[0][0]), round(y - xy[0][1])) for x, y in xy)

    drawn: dict[str, set] = {}
    for e in pieces(root):
        label = next(e.iter(f"{NS}text")).text
        drawn.setdefault(e.get("data-kind"), set()).add((outline(e), label, next(e.iter(f"{NS}title")).text))
    assert {k: {(label, tip) for _, label, tip in v} for k, v in drawn.items()} == {
        "settlement": {("0", "Settlement of player 0"), ("1", "Settlement of player 1")},
        "wall": {("#", "Stone wall")},
        "warrior": {("0w", "Warrior of player 0")},
        "ship": {("0s", "Ship of player 0")},
        "wagon": {("1v", "Wagon of player 1")},
        "city-hall": {("0H", "City hall of player 0")},
    }
    halls = [e for e in pieces(root) if e.get("data-kind") == "city-hall"]
    assert [h.get("data-hex") for h in halls] == ["11,2"]  # one piece over the seven hexes it covers
    assert sum(1 for e in halls[0].iter(f"{NS}polygon") if e.get("class") == "footprint") == 7
    shapes = {k: {shape for shape, _, _ in v} for k, v in drawn.items()}
    assert all(len(v) == 1 for v in shapes.values())  # one outline per kind
    assert len({next(iter(v)) for v in shapes.values()}) == 6  # and no two kinds share one
    # the hexes the warrior's aura blocks are marked, except those a piece already holds
    t = game.tables
    around = {t.ids[j] for j in t.nbr[t.index["1,11"]]} - set(state.to_json()["settlements"][0])
    assert {e.get("data-hex") for e in root.iter() if e.get("class") == "aura-mark"} == around


SHIPPED = resources.shipped()


def test_one_terrain_palette_holds_across_every_shipped_rule_set():
    seen: dict[str, set[str]] = {}
    for name in SHIPPED:
        for terrain, fill in svg.terrain_fills(shipped(name)).items():
            seen.setdefault(terrain, set()).add(fill)
    assert seen and all(len(fills) == 1 for fills in seen.values()), seen
    assert len({next(iter(f)) for f in seen.values()}) == len(seen)  # no two terrains share a colour


def _luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a #RRGGBB colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    dark, light = sorted((_luminance(a), _luminance(b)))
    return (light + 0.05) / (dark + 0.05)


def test_each_seat_colour_contrasts_3_to_1_with_every_hex_its_pieces_can_stand_on():
    worst = []
    for name in SHIPPED:
        rules = shipped(name)
        fills = svg.terrain_fills(rules)
        kinds = [None, *(k for k in rules.pieces if k != rules.piece_kind and k not in rules.neutral)]
        for players in range(rules.players[0], rules.players[1] + 1):
            game = Game.new(rules, players, seed=players)
            graph, t = game.board.graph, game.tables
            for kind in kinds:
                mask = game.standable(kind)
                under = {
                    svg.LOCATION_FILL if graph.nodes[h]["location"] else fills[graph.nodes[h]["terrain"]]
                    for i, h in enumerate(t.ids)
                    if (mask >> i) & 1
                }
                assert under, (name, kind)
                for seat in range(players):
                    colour = svg.PLAYER_COLORS[seat]
                    worst.append((min(contrast(colour, f) for f in under), name, kind, seat))
    assert min(worst)[0] >= 3.0, min(worst)
