"""Text rendering of a game for terminals: hex boards, a status panel and a legend.

Everything shown comes from the rule set (terrain and tile letters and titles, card
titles) and the assembled graph, so a new expansion renders without touching this
file. Boards are drawn in odd-r offset layout: in the WIDE grid each hex is a 4-character
cell and odd rows are shifted right by half a cell (2 characters); the COMPACT grid (3
characters, shifted by 1) fits a 20-column board in 80 columns. Both match the coordinates
players type ("row,col", or "board:row,col" for a detached board).

Colour is plain ANSI SGR and optional: `use_color` decides once per run, and every
function takes `color` so tests and pipes get clean text.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from kbdsl.errors import KbdslError
from kbdsl.game import State
from kbdsl.ruleset import RuleSet
from kbdsl.wording import counted


@dataclass(frozen=True)
class Grid:
    """Character geometry of a text board: hex cell width, row-label width, odd-row shift."""

    cell: int
    label: int
    shift: int

    def width(self, cols: int) -> int:
        return self.label + self.shift + cols * self.cell


WIDE = Grid(4, 4, 2)
COMPACT = Grid(3, 3, 1)
CELL, ROW_LABEL = WIDE.cell, WIDE.label  # the wide grid's, for callers that measure text boards

#: Terrain colours, by the terrain's position in the rule set's declarations (the rule
#: language has no colour property yet, and this file may not name a terrain).
TERRAIN_COLORS = ("92", "31", "93", "95", "32", "94", "90", "1;97", "96", "33", "35", "36")
#: Settlement colours per seat: background plus a readable foreground.
PLAYER_COLORS = ("1;97;41", "1;97;44", "1;30;43", "1;97;45", "1;30;42", "1;30;46", "1;30;47", "1;97;100")
LOCATION_COLOR = "1;96"
TARGET_COLOR = "1;7"
SOURCE_COLOR = "1;4"
LAST_COLOR = "1;33"
LAST_MARK = "'"  # after a hex the last turn built on, moved from or moved to
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


def grid_for(state: State, columns: int) -> Grid:
    """The wide grid when every board fits in `columns` characters, else the compact one."""
    g = state.game.board.graph
    widest = max(g.nodes[n]["col"] for n in g) + 1
    return WIDE if WIDE.width(widest) <= columns else COMPACT


def _cell(
    state: State,
    data: dict[str, Any],
    name: str,
    attrs: dict[str, Any],
    owner: dict[str, int],
    marks: tuple[Collection[str], Collection[str], Collection[str]],
    color: bool,
    grid: Grid,
    neutral: dict[str, str],
) -> str:
    """The visible characters of one hex (2, and a third for the last turn's mark), then padding."""
    rules = state.game.rules
    highlight, sources, last = marks
    tail = paint(LAST_MARK, LAST_COLOR, color) if name in last else ""
    pad = " " * (grid.cell - 2 - (1 if tail else 0))
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
                + tail
                + pad
            )
        if name in neutral:  # a piece owned by nobody: its glyph after the terrain letter
            return paint(letter, code, color) + paint(neutral[name], LOCATION_COLOR, color) + tail + pad
        text = letter + ("1" if name in data["dealt"] else " ")  # a pool hex shows whether its tile lies there
    if name in highlight:
        text, code = text[0] + "*", TARGET_COLOR
    elif name in sources:
        text, code = text[0] + "+", SOURCE_COLOR
    shown = text.rstrip()  # padding stays unpainted, so plain and coloured lines strip alike
    if tail:
        return paint(text, code, color) + tail + pad
    return paint(shown, code, color) + " " * (grid.cell - len(shown))


def render_board(
    state: State,
    highlight: Iterable[str] = (),
    sources: Iterable[str] = (),
    color: bool = False,
    data: dict[str, Any] | None = None,
    last: Iterable[str] = (),
    grid: Grid = WIDE,
) -> str:
    """All boards as hex rows: column numbers on top, row numbers on the left.

    `highlight` marks hexes with `*` (legal targets), `sources` with `+` (settlements a
    move action may lift), `last` with a trailing `'` (the last turn's moves). Settlements
    show their seat's mark after the terrain letter, location hexes their tile letter and
    the tiles left on them.
    """
    data = data if data is not None else state.view(-1)
    g = state.game.board.graph
    marks = (set(highlight), set(sources), set(last))
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
        out.append(" " * grid.label + "".join(f"{c:<{grid.cell}}" for c in cols).rstrip())
        for r in rows:
            line = f"{r:>{grid.label - 1}} " + (" " * grid.shift if r % 2 else "")
            for c in cols:
                n = cells.get((r, c))
                line += (
                    " " * grid.cell
                    if n is None
                    else _cell(state, data, n, g.nodes[n], owner, marks, color, grid, neutral)
                )
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
    width: int = 80,
) -> str:
    """Turn, whose move, each seat's supply and tiles, the viewer's own card and the game's cards,
    in lines of at most `width` characters.

    Built from `State.view(viewer)`, so only the viewer's hand card can appear; with no
    viewer (bots only, replays) every hand stays hidden.
    """
    rules = state.game.rules
    data = data if data is not None else state.view(viewer if viewer is not None else -1)
    cur = data["current"]
    head = [f"Turn {data['turn']}"]
    if data["over"]:
        head.append("game over")
    else:
        who = f"{seat_label(cur, color)} ({seats[cur]})" if seats[cur] else seat_label(cur, color)
        head.append(f"{who} to move")
        hand = data["hand"][cur]
        if hand is not None:
            head.append(f"card: {paint(rules.terrains[hand].title, terrain_color(rules, hand), color)}")
        spare = [c for c in (data.get("spare") or [[]] * (cur + 1))[cur] if c is not None]  # hidden: None
        if spare and data.get("choosing"):
            head[-1] += " or " + " or ".join(
                paint(rules.terrains[c].title, terrain_color(rules, c), color) for c in spare
            )
        if data.get("drawn"):
            head.append(f"drawn: {rules.terrains[data['drawn']].title}")
        if data["mandatory_left"]:
            head.append(f"{counted(data['mandatory_left'], 'mandatory build')} left")
        if data["ending"]:
            head.append("last round")
    cards = " · ".join(rules.cards[c].title for c in state.game.setup.cards)
    deck = f"Deck: {data['deck']} left, {len(data['discard'])} discarded"
    lines = [fit(head, width), fit([f"Cards: {cards or '-'}", deck], width, "   ")]
    if data["stock"]:
        stock = [f"{rules.pieces[k].title} ({glyph(rules, k)}) {n} left" for k, n in data["stock"].items()]
        lines.append(fit(["Shared supply: " + stock[0], *stock[1:]], width, ", "))
    if data["dealt"]:
        lying = [f"{h} {rules.tiles[k].title}" for h, k in data["dealt"].items()]
        lines.append(fit(["Tiles lying face up: " + lying[0], *lying[1:]], width, ", "))
    name_width = max((len(s) for s in seats), default=0)
    for p, kind in enumerate(seats):
        pointer = ">" if p == cur and not data["over"] else " "
        who = f"{seat_label(p, color)} {kind:<{name_width}}" if name_width else seat_label(p, color)
        kinds = "".join(
            f"  {rules.pieces[k].title.lower()} {left[p]}" for k, left in data.get("kind_supply", {}).items() if left[p]
        )
        won = f"  gold so far {sum(data['gold'][p].values()):>2}" if data["gold"][p] else ""
        start = f" {pointer} {who}  supply {data['supply'][p]:>3}{kinds}{won}  tiles:"
        tiles = _tiles_text(rules, data["tiles"][p]).split(", ")
        lines.append(fit([start + " " + tiles[0], *tiles[1:]], width, ", ", indent=len(_plain(start)) + 1))
    return "\n".join(lines)


def _plain(text: str) -> str:
    """Text without its ANSI colour codes (what a terminal shows)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def fit(parts: Sequence[str], width: int, sep: str = " · ", indent: int = 2) -> str:
    """Parts joined by `sep`, broken into lines of at most `width` visible characters."""
    lines = [parts[0]]
    for part in parts[1:]:
        if len(_plain(lines[-1] + sep + part)) <= width:
            lines[-1] += sep + part
        else:
            lines[-1] += sep.rstrip()
            lines.append(" " * indent + part)
    return "\n".join(lines)


def render_legend(rules: RuleSet, color: bool = False, width: int = 80) -> str:
    """What the letters on the board mean, from the rule set's own titles, wrapped to `width`."""
    terrains = [(t.letter, t.title, terrain_color(rules, n)) for n, t in rules.terrains.items() if t.letter]
    tiles = [(t.letter, t.title, LOCATION_COLOR) for t in rules.tiles.values() if t.letter]
    lines = []
    for head, items in (("Terrain:", terrains), ("Locations (letter + tiles left):", tiles)):
        plain = textwrap.wrap(
            "  ".join(f"{letter}\0{title.replace(' ', chr(160))}" for letter, title, _ in items),
            width - 2,
            initial_indent=" " * (len(head) + 1),
            subsequent_indent="  ",
        )
        text = "\n".join(plain)[len(head) + 1 :]
        for letter, _, code in items:  # colour each letter once wrapping is done on plain text
            text = text.replace(f"{letter}\0", paint(letter, code, color) + " ", 1)
        lines.append(f"{head} {text.replace(chr(160), ' ')}")
    neutral = "".join(f", {glyph(rules, k)} a {rules.pieces[k].title}" for k in rules.neutral)
    pools = "".join(f", 1 a tile of the {p.title} pool lying there" for p in rules.pools.values())
    pieces = [f"{glyph(rules, k)} {rules.pieces[k].title}" for k in rules.kinds]
    if pieces:
        lines.append(fit(["Pieces (in place of the letter): " + pieces[0], *pieces[1:]], width, "  "))
    lines.append(
        f"Marks after a letter: 0-9 a settlement of that seat{neutral}{pools}, * a legal target,"
        f"\n  + a settlement that may move, {LAST_MARK} a hex of the last turn's moves"
    )
    return "\n".join(lines)


def render(
    state: State,
    seats: Sequence[str],
    viewer: int | None = None,
    highlight: Iterable[str] = (),
    sources: Iterable[str] = (),
    color: bool = False,
    last: Iterable[str] = (),
    grid: Grid = WIDE,
    width: int = 80,
) -> str:
    """The boards and the status panel together, as a person sees them between moves."""
    data = state.view(viewer if viewer is not None else -1)
    board = render_board(state, highlight, sources, color, data, last, grid)
    return board + "\n\n" + render_status(state, seats, viewer, color, data, width)


def score_table(sheets: list[dict[str, int]]) -> str:
    """A per-player, per-card table with totals."""
    if not sheets:
        raise KbdslError("no players to score")
    cols = list(sheets[0])
    width = max(len(c) for c in cols + ["player"]) + 2
    lines = ["player".ljust(8) + "".join(c.rjust(width) for c in cols)]
    for p, s in enumerate(sheets):
        lines.append(f"P{p}".ljust(8) + "".join(str(s[c]).rjust(width) for c in cols))
    return "\n".join(lines)
