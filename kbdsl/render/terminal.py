"""Text rendering of a game for terminals: hex boards, a status panel and a legend.

Everything shown comes from the rule set (terrain and tile letters and titles, card
titles) and the assembled graph, so a new expansion renders without touching this
file. Boards are drawn in odd-r offset layout: each hex is a 4-character cell and odd
rows are shifted right by half a cell (2 characters), which matches the coordinates
players type ("row,col", or "board:row,col" for a detached board).

Colour is plain ANSI SGR and optional: `use_color` decides once per run, and every
function takes `color` so tests and pipes get clean text.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from typing import Any, TextIO

from kbdsl.game import State
from kbdsl.ruleset import RuleSet

CELL = 4  # characters per hex; odd rows are indented CELL // 2
ROW_LABEL = 4  # width of the row-number column

#: Terrain colours, by the terrain's position in the rule set's declarations (the rule
#: language has no colour property yet, and this file may not name a terrain).
TERRAIN_COLORS = ("92", "31", "93", "95", "32", "94", "90", "1;97", "96", "33", "35", "36")
#: Settlement colours per seat: background plus a readable foreground.
PLAYER_COLORS = ("1;97;41", "1;97;44", "1;30;43", "1;97;45", "1;30;42", "1;30;46", "1;30;47", "1;97;100")
LOCATION_COLOR = "1;96"
TARGET_COLOR = "1;7"
SOURCE_COLOR = "1;4"
SEAT_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def use_color(no_color: bool = False, stream: TextIO | None = None) -> bool:
    """Colour only for a terminal, and never when asked not to (--no-color or NO_COLOR)."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, code: str, color: bool) -> str:
    """`text` wrapped in one ANSI SGR code (unchanged when colour is off)."""
    return f"\x1b[{code}m{text}\x1b[0m" if color and code else text


def seat_mark(p: int) -> str:
    """The one-character mark of seat `p` on the board (P0 is 0, P10 is a, ...)."""
    return SEAT_DIGITS[p] if p < len(SEAT_DIGITS) else "?"


def seat_label(p: int, color: bool = False) -> str:
    """How a seat is named everywhere in the front end (the score table says P0, P1, ...)."""
    return paint(f"P{p}", PLAYER_COLORS[p % len(PLAYER_COLORS)], color)


def terrain_color(rules: RuleSet, terrain: str) -> str:
    """The terrain's own `color` (24-bit SGR) if the rules give one, else a palette entry."""
    declared = rules.terrains[terrain].color if terrain in rules.terrains else None
    if declared:
        r, g, b = (int(declared[i : i + 2], 16) for i in (1, 3, 5))
        return f"38;2;{r};{g};{b}"
    return _palette_color(rules, terrain)


def _palette_color(rules: RuleSet, terrain: str) -> str:
    order = list(rules.terrains)
    return TERRAIN_COLORS[order.index(terrain) % len(TERRAIN_COLORS)] if terrain in order else ""


# -- boards --------------------------------------------------------------------------
def board_groups(state: State) -> list[tuple[str, bool, list[str]]]:
    """(board name, is primary, node names) for every board in play, primary first."""
    g = state.game.board.graph
    primary = g.graph.get("primary")
    groups: dict[str, list[str]] = {}
    for name in state.game.tables.ids:  # ids are sorted: primary board first, then by name, row, col
        groups.setdefault(g.nodes[name]["board"], []).append(name)
    return [(b, b == primary, names) for b, names in groups.items()]


def _cell(
    state: State,
    data: dict[str, Any],
    name: str,
    attrs: dict[str, Any],
    owner: dict[str, int],
    highlight: Collection[str],
    sources: Collection[str],
    color: bool,
    neutral: dict[str, str],
) -> str:
    """The 2 visible characters of one hex, coloured, then padding to CELL."""
    rules = state.game.rules
    if attrs["location"] is not None:
        tile = rules.tiles[attrs["location"]]
        left = data["location_supply"].get(name, 0)
        text = f"{tile.letter or '?'}{min(left, 9)}"
        code = LOCATION_COLOR
    else:
        terrain = rules.terrains[attrs["terrain"]] if attrs["terrain"] else None
        letter = (terrain.letter if terrain else None) or "?"
        code = terrain_color(rules, attrs["terrain"])
        kind = _kind_on(data, name)
        if kind is not None:  # a piece of another kind than settlements shows its glyph for the letter
            letter = glyph(rules, kind)
        if name in owner:
            return (
                paint(letter, code, color)
                + paint(seat_mark(owner[name]), PLAYER_COLORS[owner[name] % len(PLAYER_COLORS)], color)
                + " " * (CELL - 2)
            )
        if name in neutral:  # a piece owned by nobody: its glyph after the terrain letter
            return paint(letter, code, color) + paint(neutral[name], LOCATION_COLOR, color) + " " * (CELL - 2)
        text = letter + ("1" if name in data["dealt"] else " ")  # a pool hex shows whether its tile lies there
    if name in highlight:
        text, code = text[0] + "*", TARGET_COLOR
    elif name in sources:
        text, code = text[0] + "+", SOURCE_COLOR
    shown = text.rstrip()  # padding stays unpainted, so plain and coloured lines strip alike
    return paint(shown, code, color) + " " * (CELL - len(shown))


def render_board(
    state: State,
    highlight: Iterable[str] = (),
    sources: Iterable[str] = (),
    color: bool = False,
    data: dict[str, Any] | None = None,
) -> str:
    """All boards as hex rows: column numbers on top, row numbers on the left.

    `highlight` marks hexes with `*` (legal targets), `sources` with `+` (settlements a
    move action may lift). Settlements show their seat's mark after the terrain letter,
    location hexes their tile letter and the tiles left on them.
    """
    data = data if data is not None else state.view(-1)
    g = state.game.board.graph
    marks, lifts = set(highlight), set(sources)
    owner = {h: p for p, hexes in enumerate(data["settlements"]) for h in hexes}
    neutral = {x["hex"]: glyph(state.game.rules, x["kind"]) for x in data["pieces"] if x["owner"] is None}
    out: list[str] = []
    for board, primary, names in board_groups(state):
        cells = {(g.nodes[n]["row"], g.nodes[n]["col"]): n for n in names}
        rows = sorted({r for r, _ in cells})
        cols = range(min(c for _, c in cells), max(c for _, c in cells) + 1)
        if not primary:
            out.append("")
            out.append(f"{board}:  (type hexes as {board}:row,col)")
        out.append(" " * ROW_LABEL + "".join(f"{c:<{CELL}}" for c in cols).rstrip())
        for r in rows:
            line = f"{r:>{ROW_LABEL - 1}} " + (" " * (CELL // 2) if r % 2 else "")
            for c in cols:
                n = cells.get((r, c))
                cell = _cell(state, data, n, g.nodes[n], owner, marks, lifts, color, neutral) if n else " " * CELL
                line += cell
            out.append(line.rstrip())
    return "\n".join(out)


def _kind_on(data: dict[str, Any], name: str) -> str | None:
    """The kind of the player-owned piece on hex `name`, if it is not a settlement."""
    for kind, per_seat in data.get("kinds", {}).items():
        if any(name in hexes for hexes in per_seat):
            return kind
    return None


def glyph(rules: RuleSet, kind: str) -> str:
    """The one character a piece kind is drawn with: its declared glyph, else its initial."""
    declared = rules.pieces[kind].glyph if kind in rules.pieces else None
    return (declared or kind)[:1]


# -- status ----------------------------------------------------------------------------
def _tiles_text(rules: RuleSet, tiles: Sequence[dict[str, Any]]) -> str:
    parts = []
    for t in tiles:
        title = rules.tiles[t["tile"]].title
        parts.append(f"{title} (used)" if t["used"] else f"{title} (new)" if t["new"] else title)
    return ", ".join(parts) or "-"


def render_status(
    state: State,
    seats: Sequence[str],
    viewer: int | None = None,
    color: bool = False,
    data: dict[str, Any] | None = None,
) -> str:
    """Turn, whose move, each seat's supply and tiles, the viewer's own card and the game's cards.

    Built from `State.view(viewer)`, so only the viewer's hand card can appear; with no
    viewer (bots only, replays) every hand stays hidden.
    """
    rules = state.game.rules
    data = data if data is not None else state.view(viewer if viewer is not None else -1)
    cur = data["current"]
    head = f"Turn {data['turn']}"
    if data["over"]:
        head += " · game over"
    else:
        who = f"{seat_label(cur, color)} ({seats[cur]})" if seats[cur] else seat_label(cur, color)
        head += f" · {who} to move"
        hand = data["hand"][cur]
        if hand is not None:
            head += f" · card: {paint(rules.terrains[hand].title, terrain_color(rules, hand), color)}"
        spare = (data.get("spare") or [None] * (cur + 1))[cur]
        if spare and data.get("choosing"):
            head += " or " + " or ".join(paint(rules.terrains[c].title, terrain_color(rules, c), color) for c in spare)
        if data.get("drawn"):
            head += f" · drawn: {rules.terrains[data['drawn']].title}"
        if data["mandatory_left"]:
            head += f" · {data['mandatory_left']} mandatory build(s) left"
        if data["ending"]:
            head += " · last round"
    cards = " · ".join(rules.cards[c].title for c in state.game.setup.cards)
    lines = [head, f"Cards: {cards or '-'}   Deck: {data['deck']} left, {len(data['discard'])} discarded"]
    if data["stock"]:
        stock = ", ".join(f"{rules.pieces[k].title} ({glyph(rules, k)}) {n} left" for k, n in data["stock"].items())
        lines.append(f"Shared supply: {stock}")
    if data["dealt"]:
        lying = ", ".join(f"{h} {rules.tiles[k].title}" for h, k in data["dealt"].items())
        lines.append(f"Tiles lying face up: {lying}")
    width = max((len(s) for s in seats), default=0)
    for p, kind in enumerate(seats):
        pointer = ">" if p == cur and not data["over"] else " "
        who = f"{seat_label(p, color)} {kind:<{width}}" if width else seat_label(p, color)
        kinds = "".join(
            f"  {rules.pieces[k].title.lower()} {left[p]}" for k, left in data.get("kind_supply", {}).items() if left[p]
        )
        gold = sum(data["gold"][p].values())
        won = f"  gold so far {gold:>2}" if data["gold"][p] else ""
        tiles = _tiles_text(rules, data["tiles"][p])
        lines.append(f" {pointer} {who}  supply {data['supply'][p]:>3}{kinds}{won}  tiles: {tiles}")
    return "\n".join(lines)


def render_legend(rules: RuleSet, color: bool = False) -> str:
    """What the letters on the board mean, from the rule set's own titles."""
    terrains = "  ".join(
        f"{paint(t.letter, terrain_color(rules, name), color)} {t.title}"
        for name, t in rules.terrains.items()
        if t.letter
    )
    tiles = "  ".join(f"{paint(t.letter, LOCATION_COLOR, color)} {t.title}" for t in rules.tiles.values() if t.letter)
    neutral = "".join(f", {glyph(rules, k)} a {rules.pieces[k].title}" for k in rules.neutral)
    pools = "".join(f", 1 a {p.title} tile lying there" for p in rules.pools.values())
    pieces = "  ".join(f"{glyph(rules, k)} {rules.pieces[k].title}" for k in rules.kinds)
    return (
        f"Terrain: {terrains}\nLocations (letter + tiles left): {tiles}\n"
        + (f"Pieces (in place of the letter): {pieces}\n" if pieces else "")
        + f"Marks after a letter: 0-9 a settlement of that seat{neutral}{pools}, * a legal target,"
        " + a settlement that may move"
    )


def render(
    state: State,
    seats: Sequence[str],
    viewer: int | None = None,
    highlight: Iterable[str] = (),
    sources: Iterable[str] = (),
    color: bool = False,
) -> str:
    """Board(s) and status panel together, as a person sees them between moves."""
    data = state.view(viewer if viewer is not None else -1)
    return (
        render_board(state, highlight, sources, color, data) + "\n\n" + render_status(state, seats, viewer, color, data)
    )
