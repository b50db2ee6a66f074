"""SVG pictures of a setup or a position, in the manner of `chess.svg.board`.

`board(subject)` returns the SVG text of every board in play (detached boards beside the
main one). The drawing is made for front ends as much as for people: every hex is one
`<polygon class="hex">` carrying `data-hex` (its name, "r,c" or "board:r,c"),
`data-terrain` and `data-location`, and every piece is one `<g class="piece">` carrying
`data-hex`, `data-kind` and `data-player` (empty for a neutral piece), with the seat number and
the kind's glyph on it; each empty hex that a piece's aura blocks gets an `aura-mark`. A web page
can attach clicks and highlight classes (CSS rules override the fill attributes).

Everything comes from the rule set and the graph: terrain colours are the rule set's own
`color` hints moved to the nearest colour of a colour-blind-safe palette (Paul Tol's), and
every hex also shows its terrain or tile letter, so no colour has to be told apart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from html import escape

from kbdsl.game import State

if TYPE_CHECKING:
    from kbdsl.game import Game
    from kbdsl.ruleset import RuleSet

#: Pale colours after Paul Tol's "light" and "pale" qualitative schemes: told apart with every
#: common colour-vision deficiency (and every hex also shows its letter), and all light (relative
#: luminance 0.53 or more), so that every seat colour stands out on every terrain. A rule set's
#: `color` hints that are exactly one of these keep it in every rule set that loads them.
SAFE_PALETTE = (
    "#88CCEE", "#BBCC33", "#EEDD88", "#EEBB99", "#FFAABB", "#99DDAA", "#CCCCCC", "#EEE0CC", "#CCBBEE",
    "#CCEEFF", "#CCDDAA", "#FFCCCC", "#99DDFF", "#DDDDDD", "#EEEEBB", "#AADDCC",
)  # fmt: skip
#: One dark colour per seat (after Tol's and ColorBrewer's dark tones), each with a contrast ratio of
#: 3:1 or more against every colour of SAFE_PALETTE (tests/test_svg.py computes it); each piece also
#: shows its seat number.
PLAYER_COLORS = ("#B2182B", "#2166AC", "#000000", "#762A83", "#994F00", "#1B7837", "#555555", "#882255")
NEUTRAL_COLOR = "#7F7F7F"
LOCATION_FILL = "#FFFFFF"
#: Piece outlines (unit radius), chosen per kind: settlements are houses, the other kinds take the
#: others in the order the rule set declares them (so two kinds of one game look different).
SHAPES = (
    ((0, -1), (0.9, -0.2), (0.9, 0.85), (-0.9, 0.85), (-0.9, -0.2)),  # house
    ((0, -1), (0.95, 0.8), (-0.95, 0.8)),  # triangle
    ((-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)),  # square
    ((0, -1), (1, 0), (0, 1), (-1, 0)),  # diamond
    tuple((math.cos(a), math.sin(a)) for a in (k * math.pi / 4 + math.pi / 8 for k in range(8))),  # octagon
    ((0, 1), (0.95, -0.8), (-0.95, -0.8)),  # triangle pointing down
    tuple(
        (r * math.cos(a), r * math.sin(a))
        for k in range(10)
        for r, a in [((1.0, 0.45)[k % 2], -math.pi / 2 + k * math.pi / 5)]
    ),  # star
)
R = 20.0  # hex radius in drawing units (centre to corner)
W = math.sqrt(3) * R  # hex width (pointy-top)
MARGIN = 8.0
LABEL = 18.0  # room for coordinates and board titles

STYLE = """
.hex { stroke: #444; stroke-width: 1; }
.hex.legal { stroke: #000; stroke-width: 3; }
.legal-mark { fill: #000; fill-opacity: 0.55; pointer-events: none; }
.aura-mark { fill: #000; fill-opacity: 0.18; stroke: #000; stroke-dasharray: 2 2; pointer-events: none; }
.last-mark { fill: none; stroke: #000; stroke-width: 2.5; stroke-dasharray: 4 3; pointer-events: none; }
.set-up-mark { fill: none; stroke: #000; stroke-width: 1.5; stroke-dasharray: 1 2; pointer-events: none; }
.piece polygon { stroke: #222; stroke-width: 1.2; }
.piece .footprint { stroke: none; fill-opacity: 0.45; }
.seat, .label, .coord, .name, .title { pointer-events: none; font-family: sans-serif; }
.label { font-size: 11px; fill: #222; text-anchor: middle; }
.name { font-size: 10px; fill: #111; text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 2.5px; }
.coord { font-size: 9px; fill: #555; text-anchor: middle; }
.title { font-size: 12px; font-weight: bold; fill: #222; }
.seat { font-size: 9px; font-weight: bold; text-anchor: middle; }
"""


class Svg(str):
    """SVG text that Jupyter and IPython show as a picture (like chess.svg's wrapper)."""

    def _repr_svg_(self) -> str:
        return str(self)


@dataclass(frozen=True)
class _Hex:
    name: str
    board: str
    row: int
    col: int
    terrain: str | None
    location: str | None


def board(
    subject: Game | State,
    *,
    hexes: Iterable[str] = (),
    last: Iterable[str] = (),
    coords: bool = False,
    legend: bool = False,
    size: int | None = None,
) -> Svg:
    """An SVG picture of a game's setup (a Game) or of a position (a State).

    `hexes` are highlighted (legal targets), `last` are marked (the last turn's moves),
    `coords` writes row and column numbers, `legend` adds the terrain and tile letters
    below, and `size` sets the picture's width in pixels (default: natural size)."""
    state = subject if isinstance(subject, State) else None
    game = state.game if state is not None else subject
    rules, g, t = game.rules, game.board.graph, game.tables
    names = lambda hs: {game.board.hex(h) for h in hs}  # noqa: E731  (raises SetupError for a bad hex)
    marked, lasts = names(hexes), names(last)
    cells = [_Hex(n, *(g.nodes[n][k] for k in ("board", "row", "col", "terrain", "location"))) for n in t.ids]
    if state is not None:
        left = {t.ids[i]: v for i, v in state.loc_supply.items()}
        pieces = state.pieces()
        blocked = sorted(t.ids[i] for i in range(t.n) if (state.blocked >> i) & 1 and not (state.occ >> i) & 1)
    else:
        left = {c.name: rules.tiles[c.location].supply or 0 for c in cells if c.location}
        pieces, blocked = [], []
    fills = terrain_fills(rules)

    boards: dict[str, list[_Hex]] = {}
    for c in cells:  # tables order: primary board first
        boards.setdefault(c.board, []).append(c)
    primary = g.graph.get("primary")
    centre: dict[str, tuple[float, float]] = {}
    out: list[str] = []
    x0, height = MARGIN + (LABEL if coords else 0), 0.0
    top = MARGIN + (LABEL if coords else 0) + (LABEL if len(boards) > 1 else 0)
    for name, group in boards.items():
        cols = max(c.col for c in group) + 1
        rows = max(c.row for c in group) + 1
        if name != primary:
            out.append(_text("title", x0, MARGIN + 10, f"{name} (hexes {name}:row,col)", anchor=False))
        for c in group:
            centre[c.name] = (x0 + W * (c.col + 0.5 * (c.row % 2)) + W / 2, top + 1.5 * R * c.row + R)
        if coords:
            out += [_text("coord", x0 + W * k + W / 2, top - 4, str(k)) for k in range(cols)]
            out += [_text("coord", x0 - LABEL / 2, top + 1.5 * R * r + R + 3, str(r)) for r in range(rows)]
        for c in group:
            out.append(_cell(rules, c, centre[c.name], fills, left.get(c.name), c.name in marked))
        width = W * (cols + 0.5)
        height = max(height, top + 1.5 * R * (rows - 1) + 2 * R)
        x0 += width + (LABEL + W if len(boards) > 1 else 0)
    for h in sorted(marked):
        x, y = centre[h]
        out.append(
            f'<circle class="legal-mark" data-hex="{h}" cx="{x:.1f}" cy="{y + R * 0.1:.1f}" r="{R * 0.22:.1f}"/>'
        )
    for terrain, mask in game.marks.items():  # markers put at set-up: the hex is of their terrain too
        title = rules.terrains[terrain].title
        for h in t.names(mask):
            x, y = centre[h]
            out.append(
                f'<polygon class="set-up-mark" data-hex="{h}" data-marker="{escape(terrain)}" '
                f'points="{_points(x, y, R * 0.7)}"/>'
            )
            out.append(_text("name", x, y + R * 0.3, title))
    for h in blocked:  # hexes next to a piece with an aura: nobody builds, places or moves there
        x, y = centre[h]
        out.append(f'<polygon class="aura-mark" data-hex="{h}" points="{_points(x, y, R * 0.55)}"/>')
    shapes = _shapes(rules)
    spread = _footprints(game, pieces)
    for hex_name, kind, owner in pieces:
        if kind in game.footprints:
            if hex_name in spread:  # one piece over its hexes, drawn at its centre
                cover = [centre[h] for h in spread[hex_name]]
                out.append(_piece(rules, hex_name, kind, owner, centre[hex_name], shapes[kind], cover))
            continue
        out.append(_piece(rules, hex_name, kind, owner, centre[hex_name], shapes.get(kind, SHAPES[1])))
    for h in sorted(lasts):
        x, y = centre[h]
        out.append(f'<polygon class="last-mark" data-hex="{h}" points="{_points(x, y, R * 0.8)}"/>')
    total_w = x0 - (LABEL + W if len(boards) > 1 else 0) + MARGIN
    total_h = height + MARGIN
    if legend:
        rows_out, total_h = _legend(rules, fills, MARGIN, total_h + 4, total_w)
        out += rows_out
    scale = f' width="{size}" height="{round(size * total_h / total_w)}"' if size else ""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="kbdsl-board" viewBox="0 0 {total_w:.1f} {total_h:.1f}"{scale}>'
        f"<style>{STYLE}</style>"
        f'<rect width="100%" height="100%" fill="#fff"/>'
    )
    return Svg(head + "".join(out) + "</svg>")


def terrain_fills(rules: RuleSet) -> dict[str, str]:
    """Each terrain's fill: its `color` hint moved to the nearest free colour of SAFE_PALETTE.

    Pairs are matched closest first, so similar hints (two greens) still get different
    colours; terrains without a hint, or past the palette's end, take what is left in order."""
    hinted = {n: _rgb(t.color) for n, t in rules.terrains.items() if t.color}
    pairs = sorted(
        (_distance(rgb, _rgb(c)), n, c) for n, rgb in hinted.items() for c in SAFE_PALETTE
    )  # deterministic: ties break by name, then palette colour
    fills: dict[str, str] = {}
    for _, n, c in pairs:
        if n not in fills and c not in fills.values():
            fills[n] = c
    spare = [c for c in SAFE_PALETTE if c not in fills.values()]
    for i, n in enumerate(n for n in rules.terrains if n not in fills):
        fills[n] = spare[i % len(spare)] if spare else SAFE_PALETTE[i % len(SAFE_PALETTE)]
    return fills


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """Perceptual colour distance: Euclidean in CIE Lab (D65)."""
    return math.dist(_lab(a), _lab(b))


def _lab(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    lin = [v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _points(x: float, y: float, r: float) -> str:
    return " ".join(
        f"{x + r * math.cos(a):.1f},{y + r * math.sin(a):.1f}"
        for a in (math.pi / 6 + k * math.pi / 3 for k in range(6))
    )


def _text(cls: str, x: float, y: float, text: str, anchor: bool = True, fill: str | None = None) -> str:
    extra = "" if anchor else ' style="text-anchor: start"'
    colour = f' fill="{fill}"' if fill else ""
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}"{extra}{colour}>{escape(text, quote=False)}</text>'


def _cell(
    rules: RuleSet, c: _Hex, at: tuple[float, float], fills: Mapping[str, str], left: int | None, legal: bool
) -> str:
    """One hex: its polygon, its letter, and for location and special hexes their name."""
    x, y = at
    if c.location is not None:
        decl, fill = rules.tiles[c.location], LOCATION_FILL
    else:
        decl = rules.terrains[c.terrain] if c.terrain else None
        fill = fills.get(c.terrain or "", "#FFFFFF")
    letter = (decl.letter if decl else None) or "?"
    title = decl.title if decl else "?"
    classes = "hex legal" if legal else "hex"
    attrs = (
        f'class="{classes}" data-hex="{c.name}" data-terrain="{escape(c.terrain or "")}" '
        f'data-location="{escape(c.location or "")}" fill="{fill}"'
    )
    tip = f"{c.name} {title}" + (f" ({left} left)" if left is not None else "")
    parts = [f'<polygon {attrs} points="{_points(x, y, R)}"><title>{escape(tip, quote=False)}</title></polygon>']
    parts.append(_text("label", x, y - R * 0.35, letter))
    named = c.location is not None or (decl is not None and "special" in decl.flags)
    if named:
        caption = title if left is None else f"{title} {left}"
        parts.append(_text("name", x, y + R * 0.72, caption))
    return "".join(parts)


def _shapes(rules: RuleSet) -> dict[str, tuple[tuple[float, float], ...]]:
    """Each piece kind's outline: a house for the kind `build` places, then the others in order."""
    others = [k for k in rules.pieces if k != rules.piece_kind]
    return {rules.piece_kind: SHAPES[0], **{k: SHAPES[1 + i % (len(SHAPES) - 1)] for i, k in enumerate(others)}}


def _footprints(game: Game, pieces: list[tuple[str, str, int | None]]) -> dict[str, list[str]]:
    """The pieces that cover a hex and its neighbours: each centre hex and the hexes it covers."""
    t = game.tables
    covered = {(h, k, p) for h, k, p in pieces if k in game.footprints}
    out = {}
    for h, k, p in covered:
        around = [t.ids[j] for j in t.nbr[t.index[h]]]
        if len(around) == 6 and all((a, k, p) in covered for a in around):
            out[h] = [h, *around]
    return out


def _piece(
    rules: RuleSet,
    hex_name: str,
    kind: str,
    owner: int | None,
    at: tuple[float, float],
    shape: tuple,
    cover: list[tuple[float, float]] = (),
) -> str:
    """One piece: its kind's outline in its owner's colour, with the seat number and the kind's glyph
    (a display hint of the rule set) on it, and its kind and owner as a tooltip. A piece that covers
    several hexes (`cover`: their centres) is one group: those hexes tinted, its outline larger."""
    x, y = at[0], at[1] + (0 if cover else R * 0.25)
    s = R * (0.75 if cover else 0.42)
    pts = " ".join(f"{x + s * dx:.1f},{y + s * dy:.1f}" for dx, dy in shape)
    colour = NEUTRAL_COLOR if owner is None else PLAYER_COLORS[owner % len(PLAYER_COLORS)]
    ink = "#fff"  # every seat colour is dark
    decl = rules.pieces.get(kind)
    glyph = (decl.glyph or "") if decl is not None else ""
    label = ("" if owner is None else str(owner)) + glyph
    mark = _text("seat", x, y + s * 0.55, label, fill=ink) if label else ""
    player = "" if owner is None else str(owner)
    tip = (decl.title if decl is not None else kind) + ("" if owner is None else f" of player {owner}")
    tint = "".join(f'<polygon class="footprint" points="{_points(cx, cy, R)}" fill="{colour}"/>' for cx, cy in cover)
    return (
        f'<g class="piece" data-hex="{hex_name}" data-kind="{escape(kind)}" data-player="{player}">'
        f"<title>{escape(tip, quote=False)}</title>"
        f'<polygon points="{pts}" fill="{colour}"/>{tint}{mark}</g>'
    )


def _legend(rules: RuleSet, fills: Mapping[str, str], x: float, y: float, width: float) -> tuple[list[str], float]:
    """Swatches with letter and title for every terrain and tile, wrapped to the picture's width."""
    entries = [(t.letter or "?", t.title, fills[n]) for n, t in rules.terrains.items()]
    entries += [(t.letter or "?", t.title, LOCATION_FILL) for t in rules.tiles.values()]
    out, cx, cy, step = [], x, y + R * 0.6, 118.0
    for letter, title, fill in entries:
        if cx + step > width:
            cx, cy = x, cy + R * 1.3
        out.append(f'<rect x="{cx:.1f}" y="{cy - 9:.1f}" width="14" height="14" fill="{fill}" stroke="#444"/>')
        out.append(_text("label", cx + 7, cy + 2, letter))
        out.append(_text("label", cx + 20, cy + 2, title, anchor=False))
        cx += step
    return out, cy + R * 0.8
