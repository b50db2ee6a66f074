"""Load a rule folder (game.yaml + .kb files) into one checked, immutable RuleSet.

Loading is all-or-nothing: every file is parsed and every cross-reference checked
before a RuleSet exists, and all findings are raised together as one RuleError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from collections.abc import Mapping

from kbdsl.errors import Diagnostic, Pos, RuleError, read_source
from kbdsl.expr import MAX_EXTENT, Compiler, Ctx, Fn, ShapeSplit, Vocabulary
from kbdsl.family import expand
from kbdsl.lang import ast
from kbdsl.lang.parser import parse, walk
from kbdsl.resources import MANIFEST, rules_path, shipped, shipped_path, user_path
from kbdsl.suggest import did_you_mean
from kbdsl.yamlio import KEY, Document, read_yaml, validate
from kbdsl.wording import counted

MAX_GRID = 64  # a section larger than this in either direction is refused
MAX_FILES = 500
MAX_EXTENDS = 32  # manifests in one extends chain
MAX_COUNT = 100  # steps of one build, place or move action; tiles per location hex; copies of a pool tile
MAX_SUPPLY = 1000  # pieces of a kind in a supply (as the manifest's `settlements`)

Flag = bool | str  # a fixed value, or the name of the rule option that decides it


@dataclass(frozen=True)
class BoardSpec:
    """A board of the layout: a grid of sections sharing one coordinate space."""

    name: str
    grid: tuple[int, int] = (1, 1)
    sectors: Flag = True
    edge: Flag = True
    turnable: bool = False
    text: str = ""


@dataclass(frozen=True)
class Option:
    name: str
    default: bool
    text: str
    ruling: int | None = None


@dataclass(frozen=True)
class CompiledAction:
    """An action with its filters compiled to bitset closures (see ast.Action for the kinds).

    What the turn engine reads in its hot path is copied out of the declaration into plain
    attributes once: `kind`, `count`, `up_to`, `piece`, `adjacent` (adjacent-if-possible),
    `per_opponent` and `steps` (a sequence of moves: several steps, or a piece of each opponent)."""

    decl: ast.Action
    target: Fn | None
    source: Fn | None
    kind: str = field(init=False)
    count: int = field(init=False)
    up_to: bool = field(init=False)
    piece: str | None = field(init=False)
    adjacent: bool = field(init=False)
    per_opponent: bool = field(init=False)
    steps: bool = field(init=False)
    required: bool = field(init=False)  # `adjacent`: the hex (or a piece's cover) must touch the player's pieces
    reads_card: bool = field(init=False)  # whether the declaration names the played card anywhere (Game.uses_card)
    reads: frozenset[str] = frozenset()  # what of the context `target` reads beside the board (Compiler.reads)
    source_reads: frozenset[str] = frozenset()  # and what `source` reads
    # of a target `A & next-to(own)` whose A reads at most the card: A (Compiler.near_own)
    near_own: Fn | None = None
    by_shape: ShapeSplit | None = None  # a board-only move target as Compiler.by_shape splits it

    def __post_init__(self) -> None:
        d, put = self.decl, object.__setattr__
        put(self, "kind", d.kind)
        put(self, "count", d.count)
        put(self, "up_to", d.up_to)
        put(self, "piece", d.piece)
        put(self, "adjacent", d.adjacent_if_possible)
        put(self, "required", "adjacent" in d.modifiers)
        put(self, "per_opponent", "per-opponent" in d.modifiers)
        put(self, "steps", d.count > 1 or self.per_opponent)
        put(self, "reads_card", any(isinstance(n, ast.Ref) and n.name == "card" for n in walk(d)))


#: Action kinds that put a hex choice on the board, and those that take none.
HEX_ACTIONS = ("build", "place", "move", "remove")


#: The settings of a `lifecycle` block: key -> {value: meaning}; the first value is the default.
LIFECYCLE_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "keep": {
        "while-touching": "kept while one of the holder's settlements touches the tile's hex",
        "for-good": "kept whatever happens on the board",
        "until-end-of-next-turn": "discarded at the end of the holder's turn after the one it was taken in",
    },
    "check": {
        "at-once": "a tile that is no longer kept is lost the moment that happens",
        "end-of-turn": "a tile that is no longer kept is lost at the end of the turn",
    },
    "lost": {
        "for-good": "a lost tile leaves the game",
        "back-to-hex": "a lost tile goes back onto its hex, for other players to take",
    },
    "use": {
        "once-per-turn": "each tile held gives one use a turn",
        "once": "the tile leaves the game when it is used",
    },
    "first-use": {
        "next-turn": "usable from the holder's turn after the one it was taken in",
        "this-turn": "usable at once",
        "when-gained": "its action happens by itself the moment it is taken (an action without a choice)",
    },
    "window": {
        "outside-mandatory": "used before or after the mandatory action, never between its builds",
        "any-time": "used at any time of the holder's turn, between builds too",
    },
    "forced": {
        "no": "using the tile is up to its holder",
        "if-legal": "the holder may not end a turn in which the tile is usable and a use of it is legal",
    },
}
#: The settings of a `terrain-card` declaration.
TERRAIN_CARD_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "tile-use": {
        "fixes-choice": "a tile that builds on the card's terrain may use any of its terrains, and doing so "
        "fixes the card's choice for the turn",
        "leaves-choice": "a tile that builds on the card's terrain may use any of its terrains; only the "
        "mandatory action fixes the card's choice",
    },
}
#: The settings of a `piece` declaration.
PIECE_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "owner": {
        "player": "each player has their own, from their own supply; they count as the player's (`own`)",
        "none": "nobody owns them; one shared supply; they occupy their hex and count for no one",
    },
}
#: The settings of a piece kind owned by players beside the one `build` places (kbdsl.engine.kinds).
PIECE_KIND_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "aura": {
        "none": "the piece blocks only its own hex",
        "blocks-next-to": "while it stands, nobody builds, places or moves a piece onto a hex next to it",
    },
    "footprint": {
        "one-hex": "the piece covers one hex",
        "hex-and-neighbours": "the piece covers a hex and its six neighbours, each of them counted as a piece",
    },
    "movable": {
        "yes": "any move action may move it, as a settlement",
        "by-own-tile": "only a move action that names its kind moves it",
        "no": "it never moves and is never removed",
    },
    "placement": {
        "blocked-by-auras": "it is never placed on a hex next to a piece with an aura",
        "past-auras": "it may be placed next to a piece with an aura (the aura still blocks builds and moves)",
    },
    "placement-pays": {
        "yes": "placing it pays the cards that pay for a build (`on build`), for each hex it covers",
        "no": "placing it pays no `on build` gold",
    },
    "arrives": {
        "at-setup": "each player has the whole supply from the start",
        "with-tiles": "a player has none at the start, and gets them from tiles that give them (`gives`)",
    },
}
#: The settings of a `grant` (an action of the board, kbdsl.engine.grants): its phase, and of the
#: lifecycle settings those that make sense for an action nobody holds.
GRANT_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "phase": {
        "turns": "used in the players' turns",
        "end-of-game": "used once the game ends, before scoring: each player in seat order from the start "
        "player takes one more turn with only these actions",
        "start-of-game": "used before the first turn: each player in seat order takes a turn with only these actions",
        "last-tile-taken": "a reaction: when a move takes a hex's last tile, each other player `to` names, in seat "
        "order from the turn's player's left, takes a turn with only these actions within that turn",
    },
    "use": {
        "once-per-turn": "its `times` uses are given again each turn",
        "once": "its `times` uses are given once for the whole game",
    },
    "window": LIFECYCLE_SETTINGS["window"],
}
#: The settings of a `placement` (markers put at set-up, kbdsl.engine.placements).
PLACEMENT_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "per": {
        "board": "the count is put on hexes of the whole board",
        "section": "the count is put on each section in play that is a sector (each named in `sections`, if it "
        "names some)",
    },
}
#: Card-zone settings: how many terrain cards a hand holds and where they go. The `turn` block
#: states them for every player; a tile restates them for its holder (kbdsl.engine.hand). `hand` is
#: a number (NUMBER_SETTINGS); the others take one of their values.
CARD_SETTINGS: Mapping[str, Mapping[str, str]] = {
    "hand": {"1": "terrain cards in hand: dealt at setup, drawn up to at the end of the holder's turn"},
    "draw": {
        "end-of-turn": "hands are dealt at setup and filled again at the end of the holder's turn",
        "start-of-turn": "the holder fills their hand at the start of their turn; nobody holds cards between turns",
    },
    "discard": {
        "all": "at the end of the turn every card in hand goes to the discard pile",
        "played": "only the played card goes to the discard pile; the others stay in hand",
    },
    "identical": {
        "as-drawn": "cards of one terrain are played as that terrain",
        "any-terrain": "a hand of two or more cards, all of one terrain, may be played as any terrain of the deck",
    },
}
#: Card-zone settings a tile may not restate: when hands are filled is the same for everyone.
TURN_ONLY = frozenset({"draw"})
#: Settings whose value is a whole number, with the range allowed.
NUMBER_SETTINGS: Mapping[str, tuple[int, int]] = {"hand": (1, 9)}
#: The settings of the `turn` block.
TURN_SETTINGS: Mapping[str, Mapping[str, str]] = {
    **CARD_SETTINGS,
    "moves": {
        "must-leave": "a moved settlement ends on another hex than the one it left",
        "may-stay": "a moved settlement may end on the hex it left",
    },
    "end": {
        "latched": "once a player's supply is empty, the game ends after the round, whatever happens",
        "while-a-supply-is-empty": "the end is called off if removed pieces refill every empty supply",
    },
}


@dataclass(frozen=True)
class Settings:
    """The settings of a lifecycle or turn block; `when` lines depend on the game's rule options."""

    decl: ast.Lifecycle | ast.Turn | ast.Piece | ast.Tile | ast.TerrainCard | ast.Placement | None
    lines: tuple[tuple[str, str, Fn | None], ...]
    defaults: Mapping[str, str]

    def resolve(self, options: Mapping[str, bool]) -> dict[str, str]:
        """Key -> value in a game with these options: the last line that applies wins."""
        out = dict(self.defaults)
        ctx = Ctx(None, [], 0, dict(options))
        for key, value, when in self.lines:
            if when is None or when(ctx):
                out[key] = value
        return out


def _unconditional(settings: Settings, key: str) -> str:
    """A setting's value without rule options (its last line with no `when`, else the default)."""
    return next((v for k, v, when in reversed(settings.lines) if k == key and when is None), settings.defaults[key])


@dataclass(frozen=True)
class RuleSet:
    """Everything a game needs from rules/: declarations, compiled rules, manifest data."""

    name: str
    title: str
    text: str
    root: Path
    players: tuple[int, int]
    settlements: int
    cards_in_play: int
    deck: Mapping[str, int]
    terrains: Mapping[str, ast.Terrain]
    tiles: Mapping[str, ast.Tile]
    cards: Mapping[str, ast.Card]  # Kingdom Builder cards (3 are dealt)
    scorings: Mapping[str, ast.Card]  # scoring that applies in every game, card or not
    sections: Mapping[str, ast.Section]
    defines: Mapping[str, ast.Define]
    boards: tuple[BoardSpec, ...]
    options: Mapping[str, Option]
    lifecycles: Mapping[str, Settings]  # lifecycle name -> its settings
    tile_lifecycle: Mapping[str, Settings]  # tile name -> the settings it follows (its own lines last)
    tile_cards: Mapping[str, Settings]  # tile name -> the card-zone settings it restates for its holder
    turn: Settings
    pieces: Mapping[str, ast.Piece]  # the kinds of piece; `piece_kind` is the one `build` places
    piece_kind: str
    neutral: Mapping[str, int]  # kinds owned by nobody -> their shared supply
    kinds: Mapping[str, int]  # other kinds owned by players -> each player's supply of them
    kind_settings: Mapping[str, Settings]  # ... and their settings (PIECE_KIND_SETTINGS)
    pools: Mapping[str, ast.Pool]
    triggers: Mapping[str, tuple[tuple[str, Fn], ...]]  # card or scoring -> (event, gold) paid during play
    presets: Mapping[str, Mapping[str, Any]]
    legend: Mapping[str, tuple[str, str]]  # letter -> ("terrain"|"location", name)
    mandatory: tuple[CompiledAction, ...]
    actions: Mapping[str, CompiledAction]  # action name (a tile, or `tile.verb` for a part) -> the action
    action_tile: Mapping[str, str]  # action name -> the tile whose use it is
    entries: Mapping[str, tuple[str, ...]]  # tile -> the actions a use of it may start with (a choice)
    follow: Mapping[str, str]  # action name -> the action that follows it in the same use (`then`)
    decks: Mapping[str, tuple[str, ...]]  # a deck other than the Kingdom Builder cards -> its cards
    scorers: Mapping[str, Fn]  # card or scoring name -> per-player score
    files: tuple[str, ...] = field(default=())
    # terrain cards of several choices -> ((terrain, settlements or None: the mandatory count), ...)
    faces: Mapping[str, tuple[tuple[str, int | None], ...]] = field(default_factory=dict)
    face_settings: Mapping[str, Settings] = field(default_factory=dict)  # ... and their settings
    given: Mapping[str, Fn] = field(default_factory=dict)  # tiles given from a stock -> when (a truth value)
    # grant name (also in `tiles`) -> (who may use it: a truth value or None for all, uses a turn or None for 1)
    grants: Mapping[str, tuple[Fn | None, Fn | None]] = field(default_factory=dict)
    grant_settings: Mapping[str, Settings] = field(default_factory=dict)  # grant -> GRANT_SETTINGS
    # a truth value of `given` or of a grant's `to` that reads nothing but the tiles held -> the tile
    # kinds whose held() it reads (Compiler.held_read): a constant in a game where none can be held
    held_reads: Mapping[Fn, frozenset[str]] = field(default_factory=dict)
    placements: tuple[tuple[ast.Placement, Fn, Settings], ...] = ()  # set-up markers, their hexes, settings
    instead: tuple[str, ...] = ()  # grants a player may use instead of the mandatory action (`mandatory: A or G`)

    def card_terrains(self, card: str) -> tuple[str, ...]:
        """The terrains a terrain card of the deck shows (one, or a card's several choices)."""
        faces = self.faces.get(card)
        return tuple(t for t, _ in faces) if faces is not None else (card,)

    def deck_terrains(self) -> list[str]:
        """Every terrain a card of the deck shows, in deck order."""
        out: list[str] = []
        for card in self.deck:
            out += [t for t in self.card_terrains(card) if t not in out]
        return out

    @property
    def ref(self) -> str:
        """How saves name this rule set: shipped ones by folder ('base'), others by absolute path."""
        home = rules_path("").resolve()
        root = self.root.resolve()
        return str(root.relative_to(home)) if root.is_relative_to(home) else str(root)

    @property
    def primary_board(self) -> BoardSpec:
        return self.boards[0]

    def sections_for(self, board: str) -> list[str]:
        primary = self.primary_board.name
        return [s.name for s in self.sections.values() if (s.board or primary) == board]

    def tile_hand(self, tile: str) -> int | None:
        """The hand size a tile restates for its holder, under the default rule options (None: it does not)."""
        cards = self.tile_cards.get(tile)
        hand = cards.resolve(self.option_defaults()).get("hand") if cards is not None else None
        return int(hand) if hand is not None else None

    def option_defaults(self) -> dict[str, bool]:
        return {o.name: o.default for o in self.options.values()}

    def flag(self, value: Flag, options: Mapping[str, bool]) -> bool:
        return options[value] if isinstance(value, str) else bool(value)


def load(where: str | Path) -> RuleSet:
    """Load a rule set from a folder (or its game.yaml), or a shipped one by name ('base')."""
    path = user_path(where)
    if path.is_dir() and not (path / MANIFEST).is_file() and (found := shipped_path(str(where))) is not None:
        path = found  # a folder here of a shipped rule set's name that holds no rule set does not hide it
    if path.is_dir():
        path = path / MANIFEST
    if not path.is_file() or path.name != MANIFEST:  # any other file is not read at all
        hint = did_you_mean(str(where), shipped()) if not Path(where).exists() else ""
        raise RuleError(
            [
                Diagnostic(
                    Pos(str(path)),
                    f"no game manifest here (expected a folder with game.yaml or a shipped rule set's name: "
                    f"{', '.join(shipped())}){hint}",
                    "E200",
                )
            ]
        )
    return _Loader().load(path)


def _leaves(path: Path, folder: Path) -> bool:
    """Whether a file reached from `folder` is really elsewhere (through a symbolic link)."""
    return not path.resolve().is_relative_to(folder.resolve())


class _Loader:
    def __init__(self) -> None:
        self.diags: list[Diagnostic] = []

    def err(self, pos: Pos, msg: str, code: str) -> None:
        self.diags.append(Diagnostic(pos, msg, code))

    # -- manifests -----------------------------------------------------------
    def _manifests(self, path: Path, seen: frozenset[Path] = frozenset()) -> list[Document]:
        """The manifest and the ones it extends, parents first (a loop, not a recursion, along one
        chain: a chain longer than MAX_EXTENDS is an error at the `extends` that goes too far).
        `extends` may list several rule sets: each one's manifests in order, and a manifest they
        share (the base game) only once."""
        docs: list[Document] = []
        seen = set(seen)
        while True:
            if _leaves(path, path.parent):
                raise RuleError(
                    [Diagnostic(Pos(str(path)), "the manifest is a symbolic link out of its rule folder", "E200")]
                )
            path = _display(path)
            seen.add(path.resolve())
            doc = read_yaml(path)
            validate(doc, "manifest")
            docs.append(doc)
            parent = doc.data.get("extends")
            if not parent:
                return docs[::-1]
            if len(seen) >= MAX_EXTENDS:
                raise doc.error(
                    f"extends: a rule set may extend at most {MAX_EXTENDS} manifests", "extends", code="E203"
                )
            if isinstance(parent, list):
                out: list[Document] = []
                for k, each in enumerate(parent):
                    loaded = {Path(d.path).resolve() for d in out}
                    target = self._parent(doc, path, each, ("extends", k), seen, docs)
                    chain = self._manifests(target, frozenset(seen))
                    out += [d for d in chain if Path(d.path).resolve() not in loaded]
                return out + docs[::-1]
            path = self._parent(doc, path, parent, ("extends",), seen, docs)

    def _parent(
        self, doc: Document, path: Path, parent: str, where: tuple, seen: set[Path], docs: list[Document]
    ) -> Path:
        """The manifest an `extends` entry names: a folder relative to `path`, or a shipped rule set.
        A manifest already on the chain is a cycle, reported at the `extends` that closes it."""
        target = path.parent / parent
        if not target.exists() and "/" not in parent:
            target = shipped_path(parent) or target  # a shipped rule set by name
        target = target / MANIFEST if target.is_dir() else target
        if not target.is_file() or target.name != MANIFEST:
            hint = "" if "/" in parent else f", and no shipped rule set of that name{did_you_mean(parent, shipped())}"
            raise doc.error(f"extends {parent!r}: no game manifest there{hint}", *where, code="E203")
        if target.resolve() in seen:
            paths = [d.path for d in docs]  # from the first manifest read, up the chain
            resolved = [Path(p).resolve() for p in paths]
            chain = paths[resolved.index(target.resolve()) :] if target.resolve() in resolved else paths
            loop = " -> ".join([*chain, str(_display(target))])
            raise doc.error(f"extends {parent!r}: manifests extend each other in a cycle ({loop})", *where, code="E203")
        return target

    def load(self, path: Path) -> RuleSet:
        docs = self._manifests(path)
        merged: dict[str, Any] = {"players": {}, "deck": {}, "presets": {}, "options": {}}
        where: dict[tuple, Pos] = {}
        boards: dict[str, dict] = {}
        files: list[tuple[Path, Pos]] = []
        for doc in docs:
            d = doc.data
            for key in ("name", "title", "text", "settlements", "cards_in_play"):
                if key in d:
                    merged[key] = d[key]
                    where[(key,)] = doc.pos(key)
            for key in ("players", "deck", "presets", "options"):
                for k, v in d.get(key, {}).items():
                    merged[key][k] = v
                    where.update((mark, p) for mark, p in doc.marks.items() if mark[:2] == (key, k))
            names = [b["name"] for b in d.get("boards", [])]
            for i, b in enumerate(d.get("boards", [])):
                if names.index(b["name"]) != i:
                    self.err(
                        doc.pos("boards", i, "name"), f"board {b['name']!r} is declared twice in this manifest", "E102"
                    )
                boards.setdefault(b["name"], {}).update(b)
                where[("boards", b["name"])] = doc.pos("boards", i)
            base = Path(doc.path).parent
            for i, pattern in enumerate(d.get("files", [])):
                if ".." in Path(pattern).parts:
                    self.err(
                        doc.pos("files", i), f"file pattern {pattern!r} leaves the rule folder; use extends", "E204"
                    )
                    continue
                try:
                    found = sorted(base.glob(pattern))
                except (ValueError, NotImplementedError, OSError, IndexError) as e:
                    self.err(doc.pos("files", i), f"bad file pattern {pattern!r}: {e}", "E204")
                    continue
                if not found:
                    self.err(doc.pos("files", i), f"no rule file matches {pattern!r}", "E204")
                for f in found:
                    if f.is_file() and _leaves(f, base):
                        self.err(
                            doc.pos("files", i),
                            f"rule file {f.name!r} is a symbolic link out of the rule folder",
                            "E204",
                        )
                    elif f.is_file():
                        files.append((f, doc.pos("files", i)))
        if len(files) > MAX_FILES:
            raise RuleError([Diagnostic(where.get(("name",), Pos(str(path))), "too many rule files", "E204")])
        decls, found = expand(self._parse(files))
        self.diags.extend(found)
        if self.diags:  # syntax errors: stop here rather than bury them under follow-on findings
            raise RuleError(dedupe(self.diags))
        return self._build(path, merged, boards, where, decls)

    def _parse(self, files: list[tuple[Path, Pos]]) -> list[ast.Decl]:
        decls: list[ast.Decl] = []
        seen: set[Path] = set()
        for f, _ in files:
            if f.resolve() in seen:
                continue
            seen.add(f.resolve())
            try:
                decls.extend(parse(read_source(f), str(f)))
            except RuleError as e:
                self.diags.extend(e.diagnostics)
        return decls

    # -- cross-checks --------------------------------------------------------
    def _unique(self, decls, kind: str) -> dict[str, Any]:
        """Declarations by name; a later `override` replaces an earlier one (parents load first)."""
        out: dict[str, Any] = {}
        for d in decls:
            if d.name in out and d.override:
                del out[d.name]  # re-inserted below, at the end, in the overriding file's place
            elif d.name in out:
                first = out[d.name].pos
                self.err(
                    d.pos,
                    f"duplicate {kind} {d.name!r} (first declared at {first}; write `override` to replace it)",
                    "E102",
                )
                continue
            elif d.override:
                self.err(
                    d.pos, f"override {kind} {d.name!r}: there is no earlier {kind} of that name to replace", "E108"
                )
            out[d.name] = d
        return out

    def _build(self, path: Path, m: dict, boards_raw: dict, where: dict, decls: list) -> RuleSet:
        terrains = self._unique([d for d in decls if isinstance(d, ast.Terrain)], "terrain")
        tiles = self._unique([d for d in decls if isinstance(d, ast.Tile)], "tile")
        all_cards = self._unique([d for d in decls if isinstance(d, ast.Card)], "card or scoring")
        sections = self._unique([d for d in decls if isinstance(d, ast.Section)], "section")
        defines = self._unique([d for d in decls if isinstance(d, ast.Define)], "definition")
        lifecycles = self._unique([d for d in decls if isinstance(d, ast.Lifecycle)], "lifecycle")
        pieces = self._unique([d for d in decls if isinstance(d, ast.Piece)], "piece")
        pools = self._unique([d for d in decls if isinstance(d, ast.Pool)], "pool")
        terrain_cards = self._unique([d for d in decls if isinstance(d, ast.TerrainCard)], "terrain card")
        placements = self._unique([d for d in decls if isinstance(d, ast.Placement)], "placement")
        tables = {"card": all_cards, "section": sections, "tile": tiles}
        for r in (d for d in decls if isinstance(d, ast.Removal)):
            if r.name not in tables[r.kind] or tables[r.kind][r.name].always:
                self.err(r.pos, f"remove {r.kind} {r.name!r}: there is no {r.kind} of that name to remove", "E108")
            else:
                del tables[r.kind][r.name]
        turn: ast.Turn | None = None
        for t in (d for d in decls if isinstance(d, ast.Turn)):
            if turn is not None and not t.override:
                self.err(t.pos, f"a rule set has one turn block (first at {turn.pos}; write `override turn`)", "E102")
                continue
            if turn is None and t.override:
                self.err(t.pos, "override turn: there is no earlier turn block to replace", "E108")
            turn = t
        reserved = set(terrains) & set(tiles)
        for name in sorted(reserved):
            self.err(tiles[name].pos, f"tile {name!r} has the name of a terrain", "E102")

        legend: dict[str, tuple[str, str]] = {}
        legend_pos: dict[str, Pos] = {}
        for kind, table in (("terrain", terrains), ("location", tiles)):
            for d in table.values():
                if d.letter is None:
                    continue
                if len(d.letter) != 1:
                    self.err(d.pos, f"letter {d.letter!r} of {d.name!r} must be a single letter", "E103")
                elif d.letter in legend:
                    self.err(
                        d.pos, f"letter {d.letter!r} of {d.name!r} is already used at {legend_pos[d.letter]}", "E102"
                    )
                else:
                    legend[d.letter] = (kind, d.name)
                    legend_pos[d.letter] = d.pos
        for t in terrains.values():
            if t.color is not None and not re.fullmatch(r"#[0-9a-fA-F]{6}", t.color):
                self.err(t.pos, f"color {t.color!r} of terrain {t.name!r} must be written #rrggbb", "E103")
        for t in tiles.values():
            if t.pool is not None:
                if t.pool not in pools:
                    self.err(t.pos, f"tile {t.name!r} names unknown pool {t.pool!r}", "E101")
                if t.copies is None or t.letter is not None or t.supply is not None:
                    self.err(
                        t.pos, f"tile {t.name!r} of a pool has `copies` (how many), no letter and no supply", "E107"
                    )
            elif t.supply is None and t.grant is None:
                self.err(t.pos, f"tile {t.name!r} has no supply (tiles per location hex)", "E107")
        for c in all_cards.values():
            if c.score is None and not c.triggers:
                self.err(c.pos, f"{'scoring' if c.always else 'card'} {c.name!r} has no score", "E107")
        for pool in pools.values():
            if pool.on not in terrains:
                self.err(pool.pos, f"pool {pool.name!r} must be dealt `on` a terrain, not {pool.on!r}", "E101")
        piece_kind, neutral, kinds = self._pieces(pieces, m)

        options = {k: Option(k, v["default"], v["text"], v.get("ruling")) for k, v in m["options"].items()}
        boards = self._boards(boards_raw, where, options, path)
        self._sections(sections, legend, boards, path)

        def pos_of(*key: Any) -> Pos:  # the value's place, else the nearest enclosing one's
            while key and key not in where:
                key = key[:-1]
            return where.get(key, Pos(str(path), 1, 1))

        faces = self._terrain_cards(terrain_cards, terrains)
        for terrain_name in m["deck"]:
            if terrain_name not in terrains and terrain_name not in faces:
                hint = did_you_mean(terrain_name, [*terrains, *faces])
                self.err(
                    pos_of("deck", terrain_name, KEY),
                    f"deck names unknown terrain {terrain_name!r}{hint}",
                    "E101",
                )
        presets = self._presets(m["presets"], sections, all_cards, boards, pos_of)

        self._amounts(tiles, pieces)
        vocab = Vocabulary(
            set(terrains),
            set(tiles),
            set(options),
            defines,
            faces={k: [t for t, _ in v] for k, v in faces.items()},
            extent=_extent(sections, boards),
        )
        comp = Compiler(vocab)
        actions: dict[str, CompiledAction] = {}
        action_tile: dict[str, str] = {}
        entries: dict[str, tuple[str, ...]] = {}
        follow: dict[str, str] = {}
        for t in tiles.values():
            if t.action is not None:
                entries[t.name] = self._parts(comp, t, actions, action_tile, follow)
        kind_settings = {k: self._settings(comp, pieces[k], PIECE_KIND_SETTINGS) for k in kinds}
        decks: dict[str, list[str]] = {}
        for c in all_cards.values():
            if c.deck is not None:
                decks.setdefault(c.deck, []).append(c.name)
        for sec in sections.values():
            if sec.deals is not None and sec.deals not in decks:
                self.err(sec.pos, f"section {sec.name!r} deals from unknown deck {sec.deals!r}", "E101")
        mandatory = tuple(self._action(comp, a) for a in (turn.mandatory if turn else ()))
        for extra in mandatory[1:]:
            self.err(extra.decl.pos, "a turn has one mandatory action (write it as one `build N on ...`)", "E107")
        for a in mandatory:
            if a.kind != "build":
                self.err(a.decl.pos, "the mandatory action builds settlements (`build N on ...`)", "E107")
        if turn is None:
            self.err(Pos(str(path), 1, 1), "the rule set has no turn block (the mandatory action)", "E107")
        scorers = {}
        for c in all_cards.values():
            for t in c.removes:
                if t not in terrains:
                    self.err(c.pos, f"card {c.name!r} removes the cards of unknown terrain {t!r}", "E101")
            if c.score is not None:
                comp.card = c.name if c.removes else None
                scorers[c.name] = comp.score(c.score)
        comp.card = None
        given, held_reads = {}, {}
        for t in tiles.values():
            if t.given is not None:
                given[t.name] = comp.truth(t.given)
                held_reads[given[t.name]] = comp.held_read(t.given)
                if t.letter is not None or t.pool is not None:
                    self.err(t.pos, f"tile {t.name!r} is given from a stock: no letter and no pool", "E107")
        triggers = {
            c.name: tuple((event, comp.trigger(expr)) for event, expr in c.triggers)
            for c in all_cards.values()
            if c.triggers
        }
        life = {d.name: self._settings(comp, d, LIFECYCLE_SETTINGS) for d in lifecycles.values()}
        face_settings = {k: self._settings(comp, d, TERRAIN_CARD_SETTINGS) for k, d in terrain_cards.items()}
        turn_settings = self._settings(comp, turn, TURN_SETTINGS)
        granted = {name: t for name, t in tiles.items() if t.grant is not None}
        grant_settings = {name: self._settings(comp, t, GRANT_SETTINGS) for name, t in granted.items()}
        grants = {name: self._grant(comp, t.grant) for name, t in granted.items()}
        for name, (to, _) in grants.items():
            if to is not None:
                held_reads[to] = comp.held_read(granted[name].grant.to)
        instead = tuple(n for n, _ in turn.instead) if turn else ()
        for name, where in turn.instead if turn else ():
            phase = _unconditional(grant_settings[name], "phase") if name in granted else None
            if phase != "turns":
                self.err(
                    where,
                    f"mandatory: `or {name}` must name a grant of the players' turns (phase: turns)"
                    + did_you_mean(name, granted),
                    "E107",
                )
        both = {name: self._tile_settings(comp, t, life, pools) for name, t in tiles.items() if name not in granted}
        plain_life = MappingProxyType({k: next(iter(v)) for k, v in LIFECYCLE_SETTINGS.items()})
        for name, t in granted.items():  # a grant's lifecycle: the defaults and its `use` and `window` lines
            lines = tuple(line for line in grant_settings[name].lines if line[0] in LIFECYCLE_SETTINGS)
            both[name] = (Settings(t, lines, plain_life), Settings(t, (), MappingProxyType({})))
        tile_life = {name: x[0] for name, x in both.items()}
        tile_cards = {name: x[1] for name, x in both.items() if x[1].lines}
        for name, a in ((action_tile[k], v.decl) for k, v in actions.items()):
            if a.kind == "place" and a.piece not in neutral and a.piece not in kinds:
                self.err(a.pos, _refused_kind(a, piece_kind, neutral, kinds, pieces), "E101")
            if a.kind == "later" and a.modifiers and a.modifiers != ("adjacent-if-possible",):
                self.err(a.pos, "`next-turn ignore` takes adjacent-if-possible, the modifier a build can skip", "E105")
            if a.kind == "later" and not a.modifiers and not 1 <= a.count <= MAX_COUNT:
                self.err(a.pos, f"next-turn extra takes a count between 1 and {MAX_COUNT}", "E105")
            own_back = a.kind == "return" and a.piece == piece_kind  # one's own settlement back to the supply
            if a.kind in ("move", "return") and a.piece is not None and a.piece not in kinds and not own_back:
                self.err(a.pos, _refused_kind(a, piece_kind, neutral, kinds, pieces), "E101")
            if a.kind != "gold" and ("first-use", "when-gained") in {k[:2] for k in tile_life[name].lines}:
                self.err(a.pos, f"tile {name!r} is used when gained, so its action may not ask for a choice", "E105")
            if "per-opponent" in a.modifiers and a.kind != "remove":
                self.err(a.pos, "per-opponent belongs to `remove`", "E105")
            if a.kind == "ignore" and a.modifiers != ("adjacent-if-possible",):
                self.err(a.pos, "`ignore` takes adjacent-if-possible, the one modifier a later build can skip", "E105")
        for t in tiles.values():
            if t.gives is not None and t.gives[1] not in kinds:
                self.err(t.pos, f"tile {t.name!r} gives {t.gives[1]!r}: no piece kind of players has that name", "E101")
        placed = tuple(self._placement(comp, d, terrains, sections) for d in placements.values())
        for d in defines.values():  # check definitions nobody uses too (in the most permissive context)
            comp.compile(d.expr, move=True)
        for t in tiles.values():  # a tile without an action is held for its card settings, or for a held() rule
            if t.action is None and t.name not in comp.held and not any(st.key in CARD_SETTINGS for st in t.settings):
                self.err(
                    t.pos, f"tile {t.name!r} has no action, no card setting, and no rule reads it with held()", "E107"
                )
        self.diags.extend(comp.diagnostics)

        cards = {k: v for k, v in all_cards.items() if not v.always}
        cards_in_play = m.get("cards_in_play", 3)
        if cards_in_play > sum(c.deck is None for c in cards.values()) and not self.diags:
            self.err(
                pos_of("cards_in_play"),
                f"cards_in_play is {cards_in_play} but the rule set has only {counted(len(cards), 'card')}",
                "E107",
            )
        players = (m["players"].get("min", 2), m["players"].get("max", 4))
        if players[0] > players[1]:
            self.err(pos_of("players", "min"), "players: min is larger than max", "E107")
        if self.diags:
            raise RuleError(dedupe(self.diags))
        frozen = MappingProxyType
        return RuleSet(
            name=m["name"],
            title=m.get("title", m["name"]),
            text=m.get("text", ""),
            root=path.parent,
            players=players,
            settlements=m.get("settlements", 40),
            cards_in_play=cards_in_play,
            deck=frozen(dict(m["deck"])),
            terrains=frozen(terrains),
            tiles=frozen(tiles),
            cards=frozen(cards),
            scorings=frozen({k: v for k, v in all_cards.items() if v.always}),
            sections=frozen(sections),
            defines=frozen(defines),
            boards=tuple(boards.values()),
            options=frozen(options),
            lifecycles=frozen(life),
            tile_lifecycle=frozen(tile_life),
            tile_cards=frozen(tile_cards),
            turn=turn_settings,
            pieces=frozen(pieces),
            piece_kind=piece_kind,
            neutral=frozen(neutral),
            kinds=frozen(kinds),
            kind_settings=frozen(kind_settings),
            pools=frozen(pools),
            triggers=frozen(triggers),
            presets=frozen(presets),
            legend=frozen(legend),
            mandatory=mandatory,
            actions=frozen(actions),
            action_tile=frozen(action_tile),
            entries=frozen(entries),
            follow=frozen(follow),
            decks=frozen({k: tuple(v) for k, v in decks.items()}),
            scorers=frozen(scorers),
            files=tuple(sorted({d.pos.path for d in decls})),
            faces=frozen(faces),
            face_settings=frozen(face_settings),
            given=frozen(given),
            grants=frozen(grants),
            grant_settings=frozen(grant_settings),
            held_reads=frozen({fn: kinds for fn, kinds in held_reads.items() if kinds is not None}),
            placements=placed,
            instead=instead,
        )

    def _grant(self, comp: Compiler, rule: ast.Grant) -> tuple[Fn | None, Fn | None]:
        """Who may use a granted action, and how many times (kbdsl.engine.grants)."""
        return (
            comp.truth(rule.to) if rule.to is not None else None,
            comp.score(rule.uses) if rule.uses is not None else None,
        )

    def _placement(self, comp: Compiler, d: ast.Placement, terrains: dict, sections: dict) -> tuple:
        """A placement checked: its marker is a terrain, its sections exist; its hexes compiled."""
        if d.marker not in terrains:
            hint = did_you_mean(d.marker or "", terrains)
            self.err(d.pos, f"placement {d.name!r} puts {d.marker!r}, which is not a terrain{hint}", "E101")
        for name in d.sections:
            if name not in sections:
                self.err(d.pos, f"placement {d.name!r} names unknown section {name!r}", "E101")
        if not 1 <= d.count <= 100:
            self.err(d.pos, f"placement {d.name!r} puts 1 to 100 markers, not {d.count}", "E105")
        on = comp.hexset(d.on) if d.on is not None else (lambda c: c.t.all)
        return d, on, self._settings(comp, d, PLACEMENT_SETTINGS)

    def _settings(
        self,
        comp: Compiler,
        decl: ast.Lifecycle | ast.Turn | ast.Piece | ast.Tile | ast.TerrainCard | ast.Placement | None,
        table: Mapping[str, Mapping[str, str]],
    ) -> Settings:
        """Check a block's settings against its table and compile their `when` conditions."""
        lines = []
        what = {
            ast.Turn: "the turn block",
            ast.Piece: "a piece",
            ast.Tile: "a tile",
            ast.TerrainCard: "a terrain card",
            ast.Placement: "a placement",
        }.get(type(decl), "a lifecycle")
        if isinstance(decl, ast.Tile) and decl.grant is not None:
            what = "a grant"
        for st in decl.settings if decl is not None else ():
            if isinstance(decl, ast.Piece) and st.key in PIECE_SETTINGS:
                continue  # owner: checked by _pieces
            if st.key not in table:
                self.err(st.pos, f"{st.key!r} is not a setting of {what} ({', '.join(table)})", "E101")
                continue
            if st.key in NUMBER_SETTINGS:
                lo, hi = NUMBER_SETTINGS[st.key]
                if not lo <= int(st.value) <= hi:
                    self.err(st.value_pos, f"{st.key} is a number from {lo} to {hi}, not {st.value}", "E105")
                    continue
            elif st.value not in table[st.key]:
                hint = did_you_mean(st.value, table[st.key])
                self.err(st.value_pos, f"{st.key} is one of {', '.join(table[st.key])}, not {st.value!r}{hint}", "E105")
                continue
            when = None
            if st.when is not None:
                bad = _not_an_option_test(st.when)
                if bad is not None:
                    self.err(bad.pos, "a `when` condition tests rule options only: option(name), !, & and |", "E105")
                    continue
                when = comp.truth(st.when)
            lines.append((st.key, st.value, when))
        return Settings(decl, tuple(lines), MappingProxyType({k: next(iter(v)) for k, v in table.items()}))

    def _tile_settings(
        self, comp: Compiler, tile: ast.Tile, life: dict[str, Settings], pools: dict[str, ast.Pool]
    ) -> tuple[Settings, Settings]:
        """The lifecycle a tile follows (the one it names, else its pool's, else the first declared,
        else the defaults) followed by the tile's own lifecycle lines; and the card-zone lines it
        restates for its holder (only those it writes, no defaults)."""
        base = self._settings(comp, None, LIFECYCLE_SETTINGS)
        pool = pools.get(tile.pool) if tile.pool else None
        name = tile.lifecycle or (pool.lifecycle if pool else None)
        if name is not None:
            if name not in life:
                self.err(tile.pos, f"tile {tile.name!r} follows unknown lifecycle {name!r}", "E101")
            else:
                base = life[name]
        elif life:
            base = next(iter(life.values()))
        restated = {k: v for k, v in CARD_SETTINGS.items() if k not in TURN_ONLY}
        own = self._settings(comp, tile, {**LIFECYCLE_SETTINGS, **restated})
        lines = tuple(line for line in own.lines if line[0] in LIFECYCLE_SETTINGS)
        cards = Settings(tile, tuple(line for line in own.lines if line[0] in CARD_SETTINGS), MappingProxyType({}))
        return (Settings(base.decl, base.lines + lines, base.defaults) if lines else base), cards

    def _terrain_cards(self, cards: dict[str, ast.TerrainCard], terrains: dict) -> dict:
        """Terrain cards of several choices: each choice a terrain, a card not named like a terrain."""
        out = {}
        for d in cards.values():
            if d.name in terrains:
                self.err(d.pos, f"terrain card {d.name!r} has the name of a terrain", "E102")
                continue
            if len(d.choices) < 2:
                self.err(d.pos, f"terrain card {d.name!r} needs two choices (`choices: 2 on a, 3 on b`)", "E107")
            seen = set()
            for terrain, count in d.choices:
                if terrain not in terrains:
                    hint = did_you_mean(terrain, terrains)
                    self.err(d.pos, f"terrain card {d.name!r} names unknown terrain {terrain!r}{hint}", "E101")
                elif terrain in seen:
                    self.err(d.pos, f"terrain card {d.name!r} offers {terrain!r} twice", "E102")
                elif count is not None and not 1 <= count <= 100:
                    self.err(d.pos, f"terrain card {d.name!r}: a choice builds 1 to 100 settlements", "E105")
                seen.add(terrain)
            out[d.name] = d.choices
        return out

    def _pieces(self, pieces: dict[str, ast.Piece], m: dict) -> tuple[str, dict[str, int], dict[str, int]]:
        """The kind `build` places (the first kind owned by players), the kinds owned by nobody, and
        the other kinds owned by players with each player's supply of them."""
        players, neutral = [], {}
        for d in pieces.values():
            for st in d.settings:
                if st.key in PIECE_KIND_SETTINGS:
                    continue  # checked with the kind's settings (_settings)
                if st.key not in PIECE_SETTINGS:
                    known = ", ".join([*PIECE_SETTINGS, *PIECE_KIND_SETTINGS])
                    self.err(st.pos, f"{st.key!r} is not a setting of a piece ({known})", "E101")
                elif st.value not in PIECE_SETTINGS[st.key]:
                    self.err(st.value_pos, f"owner is one of player, none, not {st.value!r}", "E105")
                elif st.when is not None:
                    self.err(st.pos, "a piece's owner does not depend on rule options", "E105")
            owner = next((st.value for st in d.settings if st.key == "owner"), "player")
            if owner == "none":
                if d.supply is None:
                    self.err(d.pos, f"piece {d.name!r} owned by nobody needs a supply (the shared stock)", "E107")
                neutral[d.name] = d.supply or 0
            else:
                players.append(d)
        kinds = {}
        for d in players[1:]:
            if d.supply is None:
                self.err(d.pos, f"piece {d.name!r} needs a supply (how many each player has)", "E107")
            kinds[d.name] = d.supply or 0
        for d in players[:1] + [d for d in pieces.values() if d.name in neutral]:
            for st in d.settings:
                if st.key in PIECE_KIND_SETTINGS:
                    self.err(
                        st.pos, f"{st.key!r} is a setting of a piece kind placed by tiles, not of {d.name!r}", "E105"
                    )
        if players and players[0].supply is not None:
            m["settlements"] = players[0].supply
        return (players[0].name if players else "settlement"), neutral, kinds

    def _flag(self, value: Any, options: dict, pos: Pos) -> Flag:
        if isinstance(value, dict):
            name = value["option"]
            if name not in options:
                self.err(pos, f"unknown rule option {name!r}{did_you_mean(name, options)}", "E101")
                return False
            return name
        return bool(value)

    def _boards(self, raw: dict, where: dict, options: dict, path: Path) -> dict[str, BoardSpec]:
        out = {}
        for name, b in raw.items():
            pos = where[("boards", name)]
            out[name] = BoardSpec(
                name,
                tuple(b.get("grid", (1, 1))),
                self._flag(b.get("sectors", True), options, pos),
                self._flag(b.get("edge", True), options, pos),
                bool(b.get("turnable", False)),
                b.get("text", ""),
            )
        if not out:
            self.err(Pos(str(path), 1, 1), "the manifest declares no board", "E107")
        return out

    def _sections(self, sections: dict, legend: dict, boards: dict, path: Path) -> None:
        primary = next(iter(boards), None)
        shapes: dict[str, tuple[tuple[int, int], ast.Section]] = {}
        for s in sections.values():
            board = s.board or primary
            if board not in boards:
                hint = did_you_mean(s.board, boards) if s.board else ""
                self.err(s.pos, f"section {s.name!r} names unknown board {s.board!r}{hint}", "E101")
                continue
            if not s.rows:
                self.err(s.pos, f"section {s.name!r} has no grid", "E103")
                continue
            widths = [len(row) for row in s.rows]
            width = max(set(widths), key=lambda w: (widths.count(w), -widths.index(w)))  # most rows have it
            if len(s.rows) > MAX_GRID or max(widths) > MAX_GRID:
                self.err(s.pos, f"section {s.name!r} is larger than {MAX_GRID}x{MAX_GRID}", "E103")
                continue
            ok = True
            for i, row in enumerate(s.rows):
                if len(row) != width:
                    where = row[0].pos if row else s.pos
                    self.err(
                        where,
                        f"row {i} of section {s.name!r} has {counted(len(row), 'hex')}, the other rows {width}",
                        "E103",
                    )
                    ok = False
                for cell in row:
                    if cell.letter not in legend:
                        self.err(
                            cell.pos,
                            f"letter {cell.letter!r} is not in the legend (no terrain or tile declares it)",
                            "E104",
                        )
                        ok = False
            if not ok:
                continue
            shape = (len(s.rows), width)
            if board in shapes and shapes[board][0] != shape:
                other = shapes[board][1]
                self.err(
                    s.pos,
                    f"section {s.name!r} is {shape[0]}x{shape[1]} but {other.name!r} on the same board is "
                    f"{shapes[board][0][0]}x{shapes[board][0][1]}",
                    "E103",
                )
            shapes.setdefault(board, (shape, s))
            if boards[board].turnable and shape[0] % 2:
                self.err(
                    s.pos,
                    f"section {s.name!r} has an odd number of rows, so it cannot be turned (its board is turnable)",
                    "E103",
                )

    def _presets(self, raw: dict, sections: dict, cards: dict, boards: dict, pos_of) -> dict:
        for name, p in raw.items():
            for board, names in p.get("sections", {}).items():
                if board not in boards:
                    self.err(
                        pos_of("presets", name, "sections", board, KEY),
                        f"preset {name!r} names unknown board {board!r}{did_you_mean(board, boards)}",
                        "E101",
                    )
                for i, s in enumerate(names):
                    if s.split("@")[0] not in sections:
                        hint = did_you_mean(s.split("@")[0], sections)
                        self.err(
                            pos_of("presets", name, "sections", board, i),
                            f"preset {name!r} names unknown section {s!r}{hint}",
                            "E101",
                        )
            for i, c in enumerate(p.get("cards", [])):
                if c not in cards or cards[c].always:
                    self.err(
                        pos_of("presets", name, "cards", i),
                        f"preset {name!r} names unknown card {c!r}{did_you_mean(c, cards)}",
                        "E101",
                    )
        return {k: MappingProxyType(v) for k, v in raw.items()}

    def _parts(self, comp: Compiler, tile: ast.Tile, actions: dict, action_tile: dict, follow: dict) -> tuple[str, ...]:
        """Compile a tile's action into named actions: the tile's own name for a plain action, and
        `tile.verb` for each sub-action of a choice and each action that follows another (`then`).
        Returns the names a use of the tile may start with."""
        assert tile.action is not None
        choice = tile.action.kind == "or"
        heads = tile.action.parts if choice else (tile.action,)
        starts = []
        for head in heads:
            name = f"{tile.name}.{head.kind}" if choice else tile.name
            starts.append(name)
            a: ast.Action | None = head
            while a is not None:
                if name in actions:
                    self.err(a.pos, f"tile {tile.name!r} has two parts named {name!r} (one verb per part)", "E102")
                    break
                if a.parts:
                    self.err(a.pos, "a choice (`or`) is the whole action of a tile, not a part of it", "E105")
                actions[name] = self._action(comp, a)
                action_tile[name] = tile.name
                if a.then is not None:
                    follow[name] = nxt = f"{tile.name}.{a.then.kind}"
                    name = nxt
                a = a.then
        return tuple(starts)

    def _amounts(self, tiles: dict[str, ast.Tile], pieces: dict[str, ast.Piece]) -> None:
        """Supplies and copies within their caps (numbers the engine makes pieces or tiles of)."""
        for t in tiles.values():
            if t.supply is not None and t.supply > MAX_COUNT:
                self.err(t.pos, f"tile {t.name!r} has supply {t.supply}: at most {MAX_COUNT} a location hex", "E105")
            if t.copies is not None and not 1 <= t.copies <= MAX_COUNT:
                self.err(t.pos, f"tile {t.name!r} has {t.copies} copies: a number from 1 to {MAX_COUNT}", "E105")
        for d in pieces.values():
            if d.supply is not None and d.supply > MAX_SUPPLY:
                self.err(d.pos, f"piece {d.name!r} has supply {d.supply}: at most {MAX_SUPPLY}", "E105")

    def _action(self, comp: Compiler, a: ast.Action) -> CompiledAction:
        if a.kind in ("build", "place", "move") and not 1 <= a.count <= MAX_COUNT:
            self.err(a.pos, f"{a.kind} count must be between 1 and {MAX_COUNT}", "E105")
        target = comp.hexset(a.target, move=a.kind == "move") if a.target is not None else None
        source = comp.hexset(a.source) if a.source is not None else None
        reads = comp.reads(a.target) if a.target is not None else frozenset()
        source_reads = comp.reads(a.source) if a.source is not None else frozenset()
        near_own = comp.near_own(a.target) if a.target is not None else None
        board_only = a.kind == "move" and "origin" in reads and reads <= {"card", "origin"}
        by_shape = comp.by_shape(a.target) if board_only else None
        return CompiledAction(a, target, source, reads, source_reads, near_own, by_shape)


def _refused_kind(
    a: ast.Action, piece_kind: str, neutral: Mapping[str, int], kinds: Mapping[str, int], pieces: Mapping
) -> str:
    """Why an action may not name its kind of piece: which kinds it takes, and what the named one is."""
    takes = [*kinds, *neutral] if a.kind == "place" else list(kinds)
    verb = {
        "place": "puts pieces placed by tiles or owned by nobody",
        "move": "naming a kind moves only pieces placed by tiles",
        "return": f"takes back one of the player's own pieces: {piece_kind!r}, or a kind placed by tiles",
    }[a.kind]
    some = f"({', '.join(takes)})" if takes else "(this rule set declares none)"
    name = a.piece
    if name == piece_kind:  # (`return` takes it back: never refused)
        what = {
            "move": f"{name!r} is the kind `build` places: a move naming no kind moves those",
        }.get(a.kind, f"{name!r} is the kind `build` places")
    elif name in neutral:
        what = f"{name!r} is owned by nobody"
    elif name in pieces:
        what = f"{name!r} is not one of them"
    else:
        what = f"there is no piece kind {name!r}{did_you_mean(name, [*takes, piece_kind])}"
    return f"{a.kind} {name}: `{a.kind}` {verb} {some}; {what}"


def _extent(sections: Mapping[str, ast.Section], boards: Mapping[str, BoardSpec]) -> int:
    """Rows plus columns of the largest board the sections make (an upper bound on any distance or
    straight line on it): what numbers of steps in expressions are bounded by."""
    primary = next(iter(boards), None)
    out = 0
    for s in sections.values():
        spec = boards.get(s.board or primary)
        if spec is not None and s.rows:
            out = max(out, sum(spec.grid) * max(len(s.rows), *map(len, s.rows)))
    return out or MAX_EXTENT


def _not_an_option_test(node: ast.Expr) -> ast.Expr | None:
    """The first part of a `when` condition that is not a rule-option test (option(name), ! & |)."""
    if isinstance(node, ast.Call) and node.name == "option":
        return None
    if isinstance(node, ast.Not):
        return _not_an_option_test(node.operand)
    if isinstance(node, ast.BoolOp):
        return _not_an_option_test(node.left) or _not_an_option_test(node.right)
    return node


def _display(path: Path) -> Path:
    """A path as people should see it in messages: relative to the working folder when inside it."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve())
    except ValueError:
        return resolved


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen, out = set(), []
    for d in diags:
        key = (d.pos, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
