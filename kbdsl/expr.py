"""Compile rule-language expressions into fast closures over hex bitsets.

An expression has one of three types: a hex set (an int bitmask over the board),
a number, or a truth value. Compilation happens when a rule set loads, so a wrong
name or type is reported at file:line:col before any game starts. The closures
read everything board-specific from the evaluation context `Ctx`, so one compiled
rule set serves every board assembled from it.

Vocabulary (the authoring guide's reference is generated from these tables):
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from functools import reduce
from itertools import compress
from typing import Any
import operator
from operator import attrgetter, or_

from kbdsl.bitset import bit_list, bits, by_parts, parts, shift_table, shift_text
from kbdsl.caches import ByOwner
from kbdsl.errors import Diagnostic, Pos
from kbdsl.lang import ast
from kbdsl.lang.parser import walk
from kbdsl.suggest import did_you_mean
from kbdsl.wording import counted

HEX, INT, BOOL = "hex set", "number", "truth value"
MAX_DEPTH = 100  # levels of one expression with the definitions it uses written out
MAX_EXTENT = 1024  # rows plus columns of the largest board kbdsl.ruleset allows (8x8 sections of 64x64)

#: Bare words that denote hex sets, with what they mean (the guide lists these).
HEX_WORDS = {
    "own": "hexes holding a settlement of the player in question",
    "other": "hexes holding another player's piece",
    "occupied": "hexes holding any piece (pieces owned by nobody included)",
    "empty": "hexes holding no piece",
    "buildable": "hexes whose terrain is marked buildable",
    "edge": "hexes on the edge of a board that counts its edge",
    "location": "location hexes (of any tile)",
    "special": "hexes with a special kind: location hexes and hexes whose terrain is marked special",
    "all": "every hex",
    "origin": "in the target of a move: the hex the moved settlement stands on before it is lifted",
    "built": "in a card's `on build` or `on mandatory`: the hexes just built on",
}
#: Functions, their argument shapes and meaning.
FUNCTIONS = {
    "terrain": "terrain(t, ...) hexes of the given terrains; terrain(card) the played card's terrain; "
    "terrain(drawn) the terrain of the card the tile's action drew; terrain(removed) in a card that "
    "`removes`, the terrain it took out of the deck",
    "location": "location(tile, ...) location hexes of the given tiles",
    "next-to": "next-to(S) hexes next to a hex of S; next-to(S, n) next to at least n of them",
    "within": "within(n, S) hexes at distance 1..n of a hex of S on the same board",
    "connected-by-own-to": "connected-by-own-to(S) hexes linked by a chain of own settlements to another hex of S",
    "line-end": "line-end(S, n) hexes just past the end of a straight line of n hexes of S",
    "straight": "straight(n) hexes exactly n steps in one of the 6 directions from the moved settlement",
    "slide": "slide(S) per direction, the last hex reached by stepping from the moved settlement through hexes of S",
    "ray": "ray(S) per direction, the first hex of S met stepping from the moved settlement, whatever lies between",
    "held": "held(tile, ...) number of tiles of these kinds the player holds, used or not",
    "same-terrain": "same-terrain(S) hexes whose terrain is the terrain of a hex of S",
    "straight-run": "straight-run(S, n) hexes of S in a straight run of at least n consecutive hexes of S",
    "aligned": "aligned(S, n) hexes of S on one straight line (along one of the three axes, gaps allowed) "
    "with at least n hexes of S",
    "diagonal-run": "diagonal-run(S, n) hexes of S in a run of at least n consecutive hexes of S along one of "
    "the two axes that are not horizontal lines",
    "count": "count(S) number of hexes of S (inside the current line, sector or area)",
    "option": "option(name) true when the named rule option is on",
}
#: Domains that `per`, `over` iterate.
DOMAINS = {
    "settlement": "each own settlement (as a one-hex region)",
    "hex": "each hex of the board",
    "line": "each horizontal line (a row of a board)",
    "sector": "each sector (a section of a board that counts as a sector)",
    "area": "each own settlement area (a connected group of own settlements)",
    "side": "each side of the board's edge (top, bottom, left, right; a corner is on two)",
    "field": "each terrain area: a connected group of hexes of one terrain that is not special",
    "board": "the whole board, as one item (`N per board where C` pays N once if C holds)",
}
AGGREGATES = {
    "max": "max(E over D where C) largest value of E over the items (0 if none)",
    "min": "min(E over D where C) smallest value of E over the items (0 if none)",
    "sum": "sum(E over D where C) total of E over the items",
    "rank": "rank(E over D where C pays a, b, ...) per item, players tied for the highest E get a, "
    "the next lower value b, ...",
}

Fn = Callable[["Ctx"], object]


class Ctx:
    """Everything an expression may read; reused and mutated by the engine for speed."""

    __slots__ = (
        "t",
        "own",
        "nb",
        "occ",
        "owned",
        "p",
        "card",
        "drawn",
        "origin",
        "built",
        "tiles",
        "picks",
        "region",
        "options",
        "_areas",
        "memo",
        "lifted",
    )

    def __init__(
        self,
        t,
        own: list[int],
        occ: int,
        options: dict[str, bool],
        p: int = 0,
        card: str | None = None,
        origin: int = -1,
    ):
        self.t = t
        self.own = own
        self.nb: list[int] | None = None  # per player, the hexes next to `own`, if the caller keeps them
        self.occ = occ
        self.owned = occ  # hexes of players' pieces: occ without neutral pieces
        self.built = 0
        self.p = p
        self.card = card
        self.drawn: str | None = None  # the card a tile's action drew (terrain(drawn))
        self.origin = origin
        self.region: int | None = None
        self.options = options
        self.tiles: list = []  # per player, the tiles held (held())
        self.picks: Mapping[str, str] = {}  # card -> the terrain it removed from the deck (terrain(removed))
        self._areas: dict[int, list[int]] = {}
        self.memo: dict[tuple, object] = {}  # values of definitions, see Compiler._shared
        self.lifted: dict[tuple, int] | None = None  # while each source of one move is lifted: see _once_a_move

    def forget(self) -> None:
        """Drop cached areas and definition values (the settlements or the card changed)."""
        if self._areas:
            self._areas = {}
        if self.memo:
            self.memo = {}

    def areas(self) -> list[int]:
        """The current player's settlement areas (cached per evaluation)."""
        found = self._areas.get(self.p)
        if found is None:
            found = self._areas[self.p] = _areas(self.own[self.p], self.t.nbr_mask)
        return found


def _areas(mask: int, nbr_mask: list[int]) -> list[int]:
    """The connected parts of mask, by lowest hex (kbdsl.bitset.components), grown ring by ring,
    each ring's hexes one by one in one loop (a grow() call per ring cost twice as much on a game's
    settlements, masked shifts of whole rings no less): a ring's neighbours are gathered before
    they meet the mask, and an area is what it took out of the mask."""
    bit = bits(len(nbr_mask))  # (a ring's hexes cleared without a shift)
    out = []
    while mask:
        rest = mask & (mask - 1)
        seed = mask ^ rest  # the lowest hex left (no negative int: see kbdsl.bitset.extend_bits)
        mask = before = rest
        ring = nbr_mask[seed.bit_length() - 1] & mask
        while ring:
            mask ^= ring
            i = ring.bit_length() - 1  # the ring's top hex starts its neighbours (no `0 | ...` made)
            ring ^= bit[i]
            grown = nbr_mask[i]
            while ring:
                i = ring.bit_length() - 1
                ring ^= bit[i]
                grown |= nbr_mask[i]
            ring = grown & mask
        out.append(seed | (before ^ mask))
    return out


@dataclass(frozen=True)
class ShapeSplit:
    """A move's target as `mask & origin` (Compiler.by_shape): `mask` reads no origin (None: every
    hex), `origin` reads the origin and the board's shape alone."""

    mask: Fn | None
    origin: Fn


@dataclass(frozen=True)
class Compiled:
    """A compiled expression; a hex set's fn never has a hex off the board (the engine relies on it)."""

    type: str
    fn: Fn
    static: bool = False  # depends on the board only: computed once per board and cached


#: Words and functions whose value depends on more than the board (see Compiler.reads); `card`
#: and `drawn` are the arguments of terrain(card) and terrain(drawn).
_READS = {
    "own": "pieces",
    "occupied": "pieces",
    "empty": "pieces",
    "other": "pieces",
    "connected-by-own-to": "pieces",
    "origin": "origin",
    "straight": "origin",
    "slide": "origin",
    "ray": "origin",
    "held": "tiles",
    "removed": "removed",
    "card": "card",
    "drawn": "drawn",
    "built": "built",
}


class Vocabulary:
    """The names a rule set declares: what expressions may refer to."""

    def __init__(
        self,
        terrains: set[str],
        tiles: set[str],
        options: set[str],
        defines: dict[str, ast.Define],
        faces: Mapping[str, Sequence[str]] | None = None,
        extent: int = MAX_EXTENT,
    ):
        self.terrains = terrains
        self.tiles = tiles
        self.options = options
        self.defines = defines
        self.faces = dict(faces or {})  # a terrain card of several choices -> its terrains
        self.extent = extent  # rows plus columns of the largest board: no distance or line on a board is longer


class Compiler:
    """Type-checks and compiles expressions; errors are collected as diagnostics."""

    def __init__(self, vocab: Vocabulary):
        self.v = vocab
        self.diagnostics: list[Diagnostic] = []
        self.held: set[str] = set()  # tiles some rule counts with held(): a tile may be held for that alone
        self._defines: dict[tuple, Compiled] = {}
        self._overs: dict[tuple, Over] = {}  # definitions' values over items (Compiler._over)
        self._expanding: list[str] = []
        self._trigger = False  # compiling a card's `on` trigger: `built` is known
        self._depth = 0
        self.card: str | None = None  # the card whose score is compiled, if it `removes` (terrain(removed))

    # -- entry points ------------------------------------------------------
    def hexset(self, node: ast.Expr, *, move: bool = False) -> Fn:
        return self._expect(node, HEX, move=move).fn

    def score(self, node: ast.Expr) -> Fn:
        return self._expect(node, INT).fn

    def truth(self, node: ast.Expr) -> Fn:
        return self._expect(node, BOOL).fn

    def trigger(self, node: ast.Expr) -> Fn:
        """The gold of a card's `on` trigger: a number, where `built` is the hexes just built."""
        self._trigger = True
        try:
            fn = self._expect(node, INT).fn
            return self._quiet(self._built_in, node, fn) or fn
        finally:
            self._trigger = False

    def _built_in(self, node: ast.Expr, general: Fn, k: int = 1) -> Fn | None:
        """`count(built & next-to(B))` or `count(built & !next-to(B))` (either way round, times a
        number written out) where `built` is one hex (as at each build): k if a neighbour of it is
        in B (or none is), one test rather than the hexes found and counted; `general` (the whole
        trigger) for any other `built`; None for other forms."""
        if isinstance(node, ast.BinOp) and node.op == "*":
            for num, rest in ((node.left, node.right), (node.right, node.left)):
                if isinstance(num, ast.Num):
                    return self._built_in(rest, general, k * num.value)
            return None
        if not (isinstance(node, ast.Call) and node.name == "count" and len(node.args) == 1):
            return None
        arg = node.args[0]
        found = _next_to_side(arg) if isinstance(arg, ast.BoolOp) and arg.op == "&" else None
        if (
            found is None
            or not (isinstance(found[0], ast.Ref) and found[0].name == "built")
            or "built" in self.v.defines
        ):
            return None
        f = self._expect(found[1].args[0], HEX).fn  # (at the top of a trigger no aggregate sets count()'s item)
        if found[2]:

            def near(c: Ctx) -> int:
                b = c.built
                if b & (b - 1) or not b:  # several hexes or none
                    return general(c)
                return k if c.t.nbr_mask[b.bit_length() - 1] & f(c) else 0

            return near

        def apart(c: Ctx) -> int:
            b = c.built
            if b & (b - 1) or not b:
                return general(c)
            return 0 if c.t.nbr_mask[b.bit_length() - 1] & f(c) else k

        return apart

    def by_shape(self, node: ast.Expr) -> ShapeSplit | None:
        """A move's target as `A & B` where B, the conjuncts (`&`) that read the origin, reads
        nothing but the origin and the board's shape (`_shape_only`), and A reads no origin: then
        B by origin is one table per board shape, and a new layout of known boards only finds A
        (a table by origin per layout refilled "two hexes in a straight line" on every new board).
        None for other targets."""
        parts, near, rest = [node], [], []
        while parts:
            part = parts.pop()
            if isinstance(part, ast.BoolOp) and part.op == "&":
                parts += [part.right, part.left]
            elif "origin" in self.reads(part):
                if not self._shape_only(part):
                    return None
                near.append(part)
            else:
                rest.append(part)
        if not near:
            return None
        both = lambda xs: reduce(lambda a, b: ast.BoolOp("&", a, b, pos=node.pos), xs)  # noqa: E731
        mask = self._quiet(self.hexset, both(rest)) if rest else None
        return ShapeSplit(mask, self._quiet(self.hexset, both(near), move=True))

    def _shape_only(self, node: ast.Expr) -> bool:
        """Whether a hex set depends on the origin and the board's shape alone (where hexes lie and
        which touch): `origin`, `all`, straight(n), next-to and within of such sets, `&`, `|`, `!`."""
        if isinstance(node, ast.Ref):
            return node.name in ("origin", "all") and node.name not in self.v.defines
        if isinstance(node, ast.Call):
            if node.name == "next-to":
                hexes, numbers = node.args[:1], node.args[1:]
            elif node.name == "within":
                hexes, numbers = node.args[1:], node.args[:1]
            else:
                return node.name == "straight"
            return len(hexes) == 1 and self._shape_only(hexes[0]) and all(isinstance(a, ast.Num) for a in numbers)
        if isinstance(node, ast.BoolOp):
            return self._shape_only(node.left) and self._shape_only(node.right)
        if isinstance(node, ast.Not):
            return self._shape_only(node.operand)
        return False

    def reads(self, node: ast.Expr) -> frozenset[str]:
        """What of the context an expression reads beside the board (definitions written out):
        "pieces" (own, occupied, empty, other and what derives from them), "origin", "card",
        "drawn", "built". The turn engine skips refilling what an action's target does not read."""
        out: set[str] = set()
        stack, seen = [node], set()
        while stack:
            for n in walk(stack.pop()):
                if isinstance(n, ast.Ref):
                    if n.name in self.v.defines and n.name not in seen:
                        seen.add(n.name)
                        stack.append(self.v.defines[n.name].expr)
                    elif n.name in _READS:
                        out.add(_READS[n.name])
                elif isinstance(n, ast.Call) and n.name in _READS:
                    out.add(_READS[n.name])
                elif isinstance(n, (ast.Per, ast.Aggregate)) and n.domain in ("settlement", "area"):
                    out.add("pieces")
        return frozenset(out)

    def held_read(self, node: ast.Expr) -> frozenset[str] | None:
        """The tile kinds whose held() a truth value reads, if it reads nothing else of the context
        (definitions written out): its value is then a constant in a game where none of these
        kinds can be held. None if it reads more (pieces, card, ...)."""
        if self.reads(node) - {"tiles"}:
            return None
        out: set[str] = set()
        stack, seen = [node], set()
        while stack:
            for n in walk(stack.pop()):
                if isinstance(n, ast.Ref) and n.name in self.v.defines and n.name not in seen:
                    seen.add(n.name)
                    stack.append(self.v.defines[n.name].expr)
                elif isinstance(n, ast.Call) and n.name == "held":
                    out.update(a.name for a in n.args if isinstance(a, ast.Ref))
        return frozenset(out)

    def near_own(self, node: ast.Expr) -> Fn | None:
        """For a hex set `A & next-to(own)` (either way round) whose A reads at most the card:
        A's function, so that the engine finds the set as A, once per board and card, & the
        neighbourhood it keeps with the pieces, without a context to fill; else None."""
        if not (isinstance(node, ast.BoolOp) and node.op == "&"):
            return None
        found = _next_to_side(node)
        if found is None or not found[2]:
            return None
        a_node, b_node, _ = found
        arg = b_node.args[0]
        if not (isinstance(arg, ast.Ref) and arg.name == "own" and "own" not in self.v.defines):
            return None
        if not self.reads(a_node) <= {"card"}:
            return None
        errors = len(self.diagnostics)
        a = self.compile(a_node)
        if len(self.diagnostics) > errors:  # reported once already, by the whole set's compiling
            del self.diagnostics[errors:]
            return None
        return a.fn if a.type == HEX else None

    # -- helpers -----------------------------------------------------------
    def _err(self, pos: Pos, msg: str, code: str = "E105", length: int = 0) -> Compiled:
        end = Pos(pos.path, pos.line, pos.col + length) if length and pos.line else None
        self.diagnostics.append(Diagnostic(pos, msg, code, end))
        return Compiled(HEX, lambda c: 0, True)  # keeps checking after an error

    def _expect(self, node, want: str, **kw) -> Compiled:
        got = self.compile(node, **kw)
        if got.type == want:
            return got
        if want == HEX and got.type == BOOL:  # a truth value used as a hex set: all or nothing
            fn = got.fn
            return Compiled(HEX, lambda c: c.t.all if fn(c) else 0, got.static)
        if not self._failed(node):
            self._err(node.pos, f"expected a {want} here, found a {got.type}")
        return Compiled(want, lambda c: 0, True)

    def _failed(self, node) -> bool:
        return any(d.pos == node.pos for d in self.diagnostics)

    @staticmethod
    def _new_key() -> object:
        """A key of its own in a board's cache (an object hashes by identity: a tuple's hash is
        found again at every lookup, half of a cached value's read)."""
        return object()

    def _lift_free(self, node: ast.Expr) -> bool:
        """Whether a hex set is the same with the moving piece lifted as without, but maybe at
        the piece's own hex: it reads no pieces and no origin, or only the pieces of each hex
        itself (`own`, `occupied`, `empty`, `other`, combined by `&`, `|` and `!`)."""
        if not self.reads(node) & {"pieces", "origin"}:
            return True
        if isinstance(node, ast.Ref):
            return node.name in ("own", "occupied", "empty", "other") and node.name not in self.v.defines
        if isinstance(node, ast.BoolOp):
            return self._lift_free(node.left) and self._lift_free(node.right)
        if isinstance(node, ast.Not):
            return self._lift_free(node.operand)
        return False

    def _cached(self, fn: Fn) -> Fn:
        """Cache a board-only value in the board tables (computed on first use)."""
        key = self._new_key()

        def cached(c: Ctx):
            cache = c.t.cache
            value = cache.get(key)  # (not a subscript in a try: on a new board most calls miss)
            if value is None:
                value = cache[key] = fn(c)
            return value

        return cached

    def _static(self, typ: str, fn: Fn) -> Compiled:
        return Compiled(typ, self._cached(fn) if typ == HEX else fn, True)

    # -- the compiler ------------------------------------------------------
    def compile(self, node, *, move: bool = False, region: str | None = None) -> Compiled:
        if self._depth >= MAX_DEPTH:  # a located error, not a RecursionError
            return self._err(
                getattr(node, "pos", Pos("?")),
                f"expression nested more than {MAX_DEPTH} levels deep (definitions included)",
            )
        self._depth += 1
        try:
            return self._compile(node, move, region)
        finally:
            self._depth -= 1

    def _compile(self, node, move: bool, region: str | None) -> Compiled:
        kw = {"move": move, "region": region}
        if isinstance(node, ast.Num):
            v = node.value
            return Compiled(INT, lambda c: v, True)
        if isinstance(node, ast.Ref):
            return self._ref(node, **kw)
        if isinstance(node, ast.Call):
            return self._call(node, **kw)
        if isinstance(node, ast.Not):
            inner = self.compile(node.operand, **kw)
            f = inner.fn
            if inner.type == HEX:
                # all & ~f(c) as below, without a negative int (CPython complements both operands)
                return self._maybe_static(HEX, lambda c: (a := c.t.all) ^ (a & f(c)), inner.static)
            if inner.type == BOOL:
                return Compiled(BOOL, lambda c: not f(c), inner.static)
            return self._err(node.pos, "'!' needs a hex set or a truth value, found a number")
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, **kw)
        if isinstance(node, ast.Compare):
            return self._compare(node, **kw)
        if isinstance(node, ast.BinOp):
            return self._binop(node, **kw)
        if isinstance(node, ast.Per):
            return self._per(node, **kw)
        if isinstance(node, ast.Aggregate):
            return self._aggregate(node, **kw)
        return self._err(getattr(node, "pos", Pos("?")), "not an expression")

    def _maybe_static(self, typ: str, fn: Fn, static: bool) -> Compiled:
        return self._static(typ, fn) if static else Compiled(typ, fn, False)

    def _ref(self, node: ast.Ref, move: bool, region: str | None) -> Compiled:
        name = node.name
        if name in self.v.defines:
            return self._define(node, move, region)
        if name == "own":
            return Compiled(HEX, _own)
        if name == "occupied":
            return Compiled(HEX, attrgetter("occ"))  # (a C function: no Python frame per call)
        if name == "empty":
            return Compiled(HEX, lambda c: (a := c.t.all) ^ (a & c.occ))
        if name == "other":
            return Compiled(HEX, lambda c: (o := c.owned) ^ (o & c.own[c.p]))
        if name == "built":
            if not self._trigger:
                return self._err(node.pos, "'built' only makes sense in a card's `on build` or `on mandatory`")
            return Compiled(HEX, attrgetter("built"))
        if name == "origin":
            if not move:
                return self._err(node.pos, "'origin' only makes sense in the target of a move")
            return Compiled(HEX, lambda c: 1 << c.origin if c.origin >= 0 else 0)
        if name in ("buildable", "edge", "location", "special", "all"):
            return Compiled(HEX, attrgetter(f"t.{name}"), True)  # a C function: no Python frame per call
        if name in DOMAINS:
            return self._err(node.pos, f"{name!r} is a domain; use it after 'per' or 'over'")
        if name in self.v.terrains:
            hint = f" (a terrain: write terrain({name}) for its hexes)"
        elif name in self.v.tiles:
            hint = f" (a tile: write location({name}) for its hexes)"
        else:
            hint = did_you_mean(name, [*HEX_WORDS, *self.v.defines])
        return self._err(node.pos, f"unknown name {name!r}{hint}", "E101", len(name))

    def _define(self, node: ast.Ref, move: bool, region: str | None) -> Compiled:
        """A definition compiled in the context it is used in (a move target may use straight())."""
        name, key = node.name, (node.name, move, region, self._trigger)
        if key in self._defines:
            return self._defines[key]
        if name in self._expanding:
            return self._err(node.pos, f"definition {name!r} refers to itself", "E106")
        self._expanding.append(name)
        try:
            got = self._shared(self.compile(self.v.defines[name].expr, move=move, region=region))
        finally:
            self._expanding.pop()
        self._defines[key] = got
        return got

    @staticmethod
    def _shared(got: Compiled) -> Compiled:
        """A definition is one shared subexpression: evaluated once per evaluation context (player,
        region, origin; Ctx.forget drops the values when the settlements change) and reused by
        every use, so definitions form a DAG and a chain that uses each link twice stays linear."""
        if got.static and got.type == HEX:
            return got  # already computed once per board
        fn, slot = got.fn, object()

        def shared(c: Ctx):
            key = (slot, c.p, c.region, c.origin)
            memo = c.memo
            if key in memo:
                return memo[key]
            value = memo[key] = fn(c)
            return value

        return Compiled(got.type, shared, got.static)

    def _names(self, node: ast.Call, known: set[str], what: str) -> list[str]:
        names = []
        for arg in node.args:
            if not isinstance(arg, ast.Ref):
                self._err(arg.pos, f"{node.name}() takes {what} names")
            elif arg.name not in known:
                hint = did_you_mean(arg.name, known)
                self._err(arg.pos, f"unknown {what} {arg.name!r}{hint}", "E101", len(arg.name))
            else:
                names.append(arg.name)
        return names

    def _int_arg(self, node: ast.Call, i: int, hi: int | None = None, why: str = "") -> int:
        """Argument i, a whole number written out; with `hi`, one from 1 to hi (`why` says why), so that
        no rule asks the engine for more steps than a board has (a located error at load time)."""
        arg = node.args[i] if i < len(node.args) else None
        if not isinstance(arg, ast.Num):
            self._err((arg or node).pos, f"{node.name}() needs a whole number as argument {i + 1}")
            return 1
        if hi is not None and not 1 <= arg.value <= hi:
            msg = f"{node.name}() takes a number from 1 to {hi} as argument {i + 1} ({why}), not {arg.value}"
            self._err(arg.pos, msg, length=len(str(arg.value)))
            return max(1, min(arg.value, hi))
        return arg.value

    def _steps_arg(self, node: ast.Call, i: int) -> int:
        """A distance or a line's length: at most the extent of the rule set's largest board."""
        why = f"no distance or line on this rule set's boards is longer than {self.v.extent}"
        return self._int_arg(node, i, self.v.extent, why)

    def _arity(self, node: ast.Call, lo: int, hi: int) -> bool:
        if not lo <= len(node.args) <= hi:
            want = counted(lo, "argument") if lo == hi else f"{lo} to {hi} arguments"
            self._err(node.pos, f"{node.name}() takes {want}, got {len(node.args)}")
            return False
        return True

    def _call(self, node: ast.Call, move: bool, region: str | None) -> Compiled:
        name, kw = node.name, {"move": move, "region": region}
        if name == "terrain":
            word = node.args[0].name if len(node.args) == 1 and isinstance(node.args[0], ast.Ref) else None
            if word in ("card", "drawn"):
                return self._card_terrain(word)
            if word == "removed":
                card = self.card
                if card is None:
                    return self._err(node.pos, "terrain(removed) only makes sense in a card that `removes` cards")
                return Compiled(HEX, lambda c: c.t.terrain.get(c.picks.get(card), 0))
            names = self._names(node, self.v.terrains, "terrain")
            if not node.args:
                return self._err(node.pos, "terrain() needs at least one terrain name")
            return self._static(HEX, lambda c: _union(c.t.terrain, names))
        if name == "location":
            names = self._names(node, self.v.tiles, "tile")
            return self._static(HEX, lambda c: _union(c.t.locations, names))
        if name == "option":
            if self._arity(node, 1, 1):
                opts = self._names(node, self.v.options, "option")
                if opts:
                    opt = opts[0]
                    return Compiled(BOOL, lambda c: c.options[opt])
            return Compiled(BOOL, lambda c: False, True)
        if name == "next-to":
            if not self._arity(node, 1, 2):
                return Compiled(HEX, lambda c: 0, True)
            inner = self._expect(node.args[0], HEX, **kw)
            f = inner.fn
            if len(node.args) == 1:
                if f is _own:  # the neighbourhood the engine keeps, if it does
                    return Compiled(HEX, _next_to_own)
                return self._maybe_static(HEX, lambda c: c.t.grow(f(c)), inner.static)
            n = self._int_arg(node, 1, 6, "a hex has 6 neighbours")
            return self._maybe_static(HEX, lambda c: _touching(f(c), n, c.t), inner.static)
        if name == "within":
            if not self._arity(node, 2, 2):
                return Compiled(HEX, lambda c: 0, True)
            n = self._steps_arg(node, 0)
            inner = self._expect(node.args[1], HEX, **kw)
            f = inner.fn
            return self._maybe_static(HEX, lambda c: _within(f(c), n, c.t), inner.static)
        if name == "connected-by-own-to":
            if not self._arity(node, 1, 1):
                return Compiled(HEX, lambda c: 0, True)
            f = self._expect(node.args[0], HEX, **kw).fn
            return Compiled(HEX, lambda c: _linked(c, f(c)))
        if name == "line-end":
            if not self._arity(node, 2, 2):
                return Compiled(HEX, lambda c: 0, True)
            inner = self._expect(node.args[0], HEX, **kw)
            n = self._int_arg(node, 1)
            if n < 1:
                self._err(node.args[1].pos, "line-end() needs a line of at least 1 hex")
                return Compiled(HEX, lambda c: 0, True)
            n = self._steps_arg(node, 1)
            f, key = inner.fn, ("line-end", n)
            own = f is _own  # read inline: one Python frame fewer on a tile's hot path

            def line_end(c: Ctx) -> int:
                t = c.t
                try:  # the board shape's compiled function (_line_ends; a subscript is cheaper than .get)
                    run = t.shape_cache[key]
                except KeyError:
                    run = _line_ends(t, n)
                return run(c.own[c.p] if own else f(c))

            return self._maybe_static(HEX, line_end, inner.static)
        if name == "straight":
            if not move:
                return self._err(node.pos, "straight() only makes sense in the target of a move")
            n = self._steps_arg(node, 0) if self._arity(node, 1, 1) else 1
            return Compiled(HEX, lambda c: _straight(c.origin, n, c.t))
        if name == "slide":
            if not move:
                return self._err(node.pos, "slide() only makes sense in the target of a move")
            if not self._arity(node, 1, 1):
                return Compiled(HEX, lambda c: 0, True)
            f = self._expect(node.args[0], HEX, **kw).fn
            if self._lift_free(node.args[0]):
                return Compiled(HEX, _once_a_move(f, self._new_key(), _slide, _slide_each, _slide_counter))
            return Compiled(HEX, lambda c: _slide(c.origin, f(c), c.t))
        if name == "ray":
            if not move:
                return self._err(node.pos, "ray() only makes sense in the target of a move")
            if not self._arity(node, 1, 1):
                return Compiled(HEX, lambda c: 0, True)
            f = self._expect(node.args[0], HEX, **kw).fn
            if self._lift_free(node.args[0]):
                return Compiled(HEX, _once_a_move(f, self._new_key(), _ray, _ray_each, _ray_counter))
            return Compiled(HEX, lambda c: _ray(c.origin, f(c), c.t))
        if name == "held":
            kinds = frozenset(self._names(node, self.v.tiles, "tile"))
            self.held |= kinds
            if not node.args:
                return self._err(node.pos, "held() needs at least one tile name")

            def held(c: Ctx) -> int:
                """How many tiles of these kinds the player in question holds (a loop: the lists are short)."""
                n = 0
                for x in c.tiles[c.p] if c.tiles else ():
                    if x.kind in kinds:
                        n += 1
                return n

            return Compiled(INT, held)
        if name == "same-terrain":
            if not self._arity(node, 1, 1):
                return Compiled(HEX, lambda c: 0, True)
            inner = self._expect(node.args[0], HEX, **kw)
            f = inner.fn
            return self._maybe_static(HEX, lambda c: _same_terrain(f(c), c.t), inner.static)
        if name == "straight-run":
            return self._hexes_and_n(node, kw, _straight_run)
        if name == "aligned":
            return self._hexes_and_n(node, kw, _aligned)
        if name == "diagonal-run":
            return self._hexes_and_n(node, kw, lambda mask, n, t: _straight_run(mask, n, t, DIAGONALS))
        if name == "count":
            if not self._arity(node, 1, 1):
                return Compiled(INT, lambda c: 0, True)
            f = self._expect(node.args[0], HEX, **kw).fn

            def count(c: Ctx) -> int:
                m = f(c)
                return (m & c.region).bit_count() if c.region is not None else m.bit_count()

            return Compiled(INT, count)
        if name in DOMAINS or name in AGGREGATES:
            return self._err(node.pos, f"{name}(...) needs the form {name}(expression over domain)")
        hint = did_you_mean(name, [*FUNCTIONS, *AGGREGATES])
        return self._err(node.pos, f"unknown function {name!r}{hint}", "E101", len(name))

    def _card_terrain(self, word: str) -> Compiled:
        """terrain(card) or terrain(drawn): a terrain card's hexes; a card of several choices (a
        terrain-card declaration) stands for all its terrains."""
        attr = attrgetter(word)
        if not self.v.faces:
            return Compiled(HEX, lambda c: c.t.terrain.get(attr(c), 0))
        faces = self.v.faces

        def card_terrain(c: Ctx) -> int:
            name = attr(c)
            hexes = c.t.terrain.get(name)
            return hexes if hexes is not None else _union(c.t.terrain, faces.get(name, ()))

        return Compiled(HEX, card_terrain)

    def _hexes_and_n(self, node: ast.Call, kw: dict, fn: Callable[[int, int, Any], int]) -> Compiled:
        """A function of a hex set and a whole number written out, `name(S, n)`: `fn(S, n, tables)`."""
        if not self._arity(node, 2, 2):
            return Compiled(HEX, lambda c: 0, True)
        inner = self._expect(node.args[0], HEX, **kw)
        n = self._steps_arg(node, 1)
        f = inner.fn
        return self._maybe_static(HEX, lambda c: fn(f(c), n, c.t), inner.static)

    def _boolop(self, node: ast.BoolOp, **kw) -> Compiled:
        if node.op == "&":
            near = self._and_next_to(node, kw) or self._and_touching(node, kw)
            if near is not None:
                return near
        left, right = self.compile(node.left, **kw), self.compile(node.right, **kw)
        if INT in (left.type, right.type):
            return self._err(node.pos, f"'{node.op}' combines hex sets or truth values, not numbers")
        lf, rf, static = left.fn, right.fn, left.static and right.static
        if left.type == right.type == BOOL:
            fn = (lambda c: lf(c) and rf(c)) if node.op == "&" else (lambda c: lf(c) or rf(c))
            return Compiled(BOOL, fn, static)
        if BOOL in (left.type, right.type):  # a truth value and a hex set: the truth value first
            test, hexes = (lf, rf) if left.type == BOOL else (rf, lf)
            if node.op == "&":  # all or nothing & hexes: the hexes are found only if needed
                return self._maybe_static(HEX, lambda c: hexes(c) if test(c) else 0, static)
            return self._maybe_static(HEX, lambda c: c.t.all if test(c) else hexes(c), static)
        fn = (lambda c: lf(c) & rf(c)) if node.op == "&" else (lambda c: lf(c) | rf(c))
        return self._maybe_static(HEX, fn, static)

    def _and_next_to(self, node: ast.BoolOp, kw: dict) -> Compiled | None:
        """`A & next-to(B)` or `A & !next-to(B)`, either way round, as `_near` (A's hexes with a
        neighbour in B, found from A's when A is the smaller side: "built & next-to(other)" looks
        at the one hex built, not at every hex next to another player's); None for other forms."""
        found = _next_to_side(node)
        if found is None:
            return None
        a_node, b_node, near = found
        if isinstance(b_node.args[0], ast.Ref) and b_node.args[0].name == "own" and "own" not in self.v.defines:
            return None  # next-to(own) is the neighbourhood the engine keeps (_next_to_own): one `&`
        if a_node is node.left:  # compiled in the order of the text, as _boolop would
            a = self.compile(a_node, **kw)
            b = self._expect(b_node.args[0], HEX, **kw)
        else:
            b = self._expect(b_node.args[0], HEX, **kw)
            a = self.compile(a_node, **kw)
        if a.type == INT:
            return self._err(node.pos, f"'{node.op}' combines hex sets or truth values, not numbers")
        af, bf = a.fn, b.fn
        if a.type == BOOL:  # a truth value as a hex set: all or nothing (as _expect)
            test = af
            af = lambda c: c.t.all if test(c) else 0  # noqa: E731
        if near:
            return self._maybe_static(HEX, lambda c: _near(af(c), bf(c), c.t), a.static and b.static)
        return self._maybe_static(HEX, lambda c: (x := af(c)) ^ _near(x, bf(c), c.t), a.static and b.static)

    def _and_touching(self, node: ast.BoolOp, kw: dict) -> Compiled | None:
        """`A & next-to(B, n)` (n written out), either way round, as _touching_in; None for other
        forms (and for a truth value or a number as A, which _boolop deals with)."""
        sides = ((node.left, node.right), (node.right, node.left))
        found = next(((a, b) for a, b in sides if isinstance(b, ast.Call) and len(b.args) == 2 and _next_to_n(b)), None)
        if found is None or self._quiet(self.compile, found[0], **kw).type != HEX:
            return None
        b_inner, n = _next_to_n(found[1])
        left, right = self.compile(node.left, **kw), self.compile(node.right, **kw)  # (with their diagnostics)
        af = (left if found[0] is node.left else right).fn
        bf = self._quiet(self._expect, b_inner, HEX, **kw).fn
        return self._maybe_static(HEX, lambda c: _touching_in(af(c), bf(c), n, c.t), left.static and right.static)

    def _compare(self, node: ast.Compare, **kw) -> Compiled:
        mark = len(self.diagnostics)
        lf = self._expect(node.left, INT, **kw).fn
        rf = self._expect(node.right, INT, **kw).fn
        if len(self.diagnostics) == mark:
            some = self._some_item(node, kw)
            if some is not None:
                return Compiled(BOOL, some)
        if isinstance(node.right, ast.Num):  # a number written out: read once, compared in line
            k = node.right.value
            return Compiled(
                BOOL,
                {
                    ">=": lambda c: lf(c) >= k,
                    "<=": lambda c: lf(c) <= k,
                    "==": lambda c: lf(c) == k,
                    "!=": lambda c: lf(c) != k,
                    ">": lambda c: lf(c) > k,
                    "<": lambda c: lf(c) < k,
                }[node.op],
            )
        op = _COMPARE[node.op]
        return Compiled(BOOL, lambda c: op(lf(c), rf(c)))

    def _some_item(self, node: ast.Compare, kw: dict) -> Fn | None:
        """`min(count(X) over D) == 0` or `max(count(X) over D) >= k` (k written out; the other
        comparisons that say the same or its opposite too) over a domain of the board: whether
        some item holds no hex of X, or k of them, stopping at the first. For min() of X = !S,
        whether S covers some item, looked for only among the items whose top hex is in S (found
        once per board): a handful of 62 terrain areas, not each of them counted. None for other
        forms."""
        agg, num = node.left, node.right
        if not (
            isinstance(agg, ast.Aggregate)
            and agg.fn in ("min", "max")
            and agg.where is None
            and agg.domain in _BOARD_ITEMS
            and isinstance(num, ast.Num)
            and isinstance(agg.expr, ast.Call)
            and agg.expr.name == "count"
            and len(agg.expr.args) == 1
            and not self._reads_region(agg.expr.args[0])
        ):
            return None
        # (whether the comparison holds when some item has the count, the count at least reached)
        found = {
            "min": {("==", 0): (True, 0), ("<=", 0): (True, 0), ("<", 1): (True, 0)}
            | {("!=", 0): (False, 0), (">", 0): (False, 0), (">=", 1): (False, 0)},
            "max": {(">=", num.value): (True, num.value), (">", num.value): (True, num.value + 1)}
            | {("<", num.value): (False, num.value), ("<=", num.value): (False, num.value + 1)},
        }[agg.fn].get((node.op, num.value))
        if found is None or (agg.fn == "max" and found[1] < 1):
            return None
        (want, k), x, items = found, agg.expr.args[0], _items(agg.domain)
        if agg.fn == "min" and isinstance(x, ast.Not):
            s = self._quiet(self._expect, x.operand, HEX, move=kw.get("move", False), region=agg.domain).fn
            key = self._new_key()

            def covers(c: Ctx) -> bool:
                t, found = c.t, items(c)
                index = t.cache.get(key, 0)
                if index.__class__ is int:  # (the calls on this board so far)
                    if index < INDEX_FROM:
                        t.cache[key] = index + 1
                        return _covers_some(s(c), found, t.all) is want
                    index = t.cache[key] = _by_top_hex(t, found)
                return _covers_one(s(c), found, index, t.all) is want

            return covers
        f = self._quiet(self._expect, x, HEX, move=kw.get("move", False), region=agg.domain).fn
        if agg.fn == "min":

            def misses(c: Ctx) -> bool:
                m, found = f(c), items(c)
                for r in found:
                    if not m & r:
                        return want
                return want if not found else not want  # (min() of no items is 0)

            return misses

        def reaches(c: Ctx) -> bool:
            m = f(c)
            for r in items(c):
                if (m & r).bit_count() >= k:
                    return want
            return not want

        return reaches

    def _binop(self, node: ast.BinOp, **kw) -> Compiled:
        lf = self._expect(node.left, INT, **kw).fn
        rf = self._expect(node.right, INT, **kw).fn
        # a number written out as a factor or divisor is read once, not called ("2 * count(...)")
        if node.op == "*" and isinstance(node.left, ast.Num):
            k = node.left.value
            return Compiled(INT, lambda c: k * rf(c))
        if node.op in ("*", "//") and isinstance(node.right, ast.Num) and node.right.value:
            k = node.right.value
            return Compiled(INT, (lambda c: lf(c) * k) if node.op == "*" else (lambda c: lf(c) // k))
        if node.op == "+":
            return Compiled(INT, lambda c: lf(c) + rf(c))
        if node.op == "-":
            return Compiled(INT, lambda c: lf(c) - rf(c))
        if node.op == "*":
            return Compiled(INT, lambda c: lf(c) * rf(c))
        return Compiled(INT, lambda c: _floordiv(lf(c), rf(c)))

    def _domain(self, name: str, pos: Pos | None) -> bool:
        if name not in DOMAINS:
            hint = did_you_mean(name, DOMAINS)
            self._err(pos, f"unknown domain {name!r}; expected one of {', '.join(DOMAINS)}{hint}", "E101", len(name))
            return False
        return True

    def _where(self, domain: str, where, **kw) -> Fn | None:
        if where is None:
            return None
        if domain in ("settlement", "hex"):
            return self._expect(where, HEX, **kw).fn
        return self._expect(where, BOOL, region=domain, move=kw.get("move", False)).fn

    def _per(self, node: ast.Per, move: bool, region: str | None) -> Compiled:
        if not self._domain(node.domain, node.domain_pos):
            return Compiled(INT, lambda c: 0, True)
        amount, domain = node.amount, node.domain
        cond = self._where(domain, node.where, move=move, region=region)
        if domain == "settlement":  # (the items read in line: a call fewer an evaluation)
            if cond is None:
                return Compiled(INT, lambda c: amount * c.own[c.p].bit_count())
            return Compiled(INT, lambda c: amount * (c.own[c.p] & cond(c)).bit_count())
        if domain == "hex":  # (a hex set holds no hex off the board: see Compiled)
            if cond is None:
                return Compiled(INT, lambda c: amount * c.t.all.bit_count())
            return Compiled(INT, lambda c: amount * cond(c).bit_count())
        items = _items(domain)
        if cond is None:
            return Compiled(INT, lambda c: amount * len(items(c)))
        if domain == "board":  # one item, the whole board: the where's truth in it, without lists of values

            def on_board(c: Ctx) -> int:
                saved, c.region = c.region, c.t.all
                holds = cond(c)
                c.region = saved
                return amount if holds else 0

            return Compiled(INT, on_board)
        keep = self._quiet(self._kept_items, domain, node.where, move, region)
        return Compiled(INT, lambda c: amount * len(keep(c, items(c))))

    def _aggregate(self, node: ast.Aggregate, move: bool, region: str | None) -> Compiled:
        fn, domain = node.fn, node.domain
        if fn not in AGGREGATES:
            hint = did_you_mean(fn, AGGREGATES)
            return self._err(
                node.pos, f"unknown aggregate {fn!r}; expected one of {', '.join(AGGREGATES)}{hint}", "E101", len(fn)
            )
        if not self._domain(domain, node.domain_pos):
            return Compiled(INT, lambda c: 0, True)
        if node.payouts and fn != "rank":
            return self._err(node.pos, f"'pays' belongs to rank(), not {fn}()")
        if fn == "rank" and not node.payouts:
            return self._err(node.pos, "rank() needs payouts: rank(E over D pays a, b)")
        if fn == "rank" and (region is not None or domain in ("settlement", "area")):
            return self._err(
                node.pos, "rank() compares players: use it over hexes, lines or sectors, not inside another domain"
            )
        mark = len(self.diagnostics)
        self._expect(node.expr, INT, move=move, region=domain)  # (the checks; the values are found by _over)
        self._where(domain, node.where, move=move, region=region)
        if len(self.diagnostics) > mark:
            return Compiled(INT, lambda c: 0)
        single = domain in ("settlement", "hex")  # (values found with the where's region: see _kept_items)
        vec, f = self._quiet(self._over, node.expr, move, region if single else domain, single)
        value = f if vec else lambda c, items: [f(c)] * len(items)
        items, where = self._board_kept(node.where, domain, _items(domain), move, region)
        keep = None if where is None else self._quiet(self._kept_items, domain, where, move, region)
        if fn == "rank":
            # a value that is a definition the where reads too: its values over the items, which
            # the where found (Compiler._over shares them), rather than found again over those kept
            shared = isinstance(node.expr, ast.Ref) and node.expr.name in self.v.defines and where is not None
            shared = shared and any(isinstance(n, ast.Ref) and n.name == node.expr.name for n in walk(where))
            return Compiled(INT, _ranked(items, value, keep, node.payouts, shared))
        pick = {"max": lambda v: max(v, default=0), "min": lambda v: min(v, default=0), "sum": sum}[fn]
        if keep is None:
            return Compiled(INT, lambda c: pick(value(c, items(c))))

        def aggregate(c: Ctx) -> int:
            found = items(c)
            if not found:
                return 0
            kept = keep(c, found)
            if len(kept) == len(found):
                return pick(value(c, found))
            return pick(value(c, kept)) if kept else 0

        return Compiled(INT, aggregate)

    # -- values over the items of a domain (aggregates and per) -------------
    def _quiet(self, build: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """build(...) without its diagnostics: it compiles parts of an expression already checked."""
        mark = len(self.diagnostics)
        try:
            return build(*args, **kw)
        finally:
            del self.diagnostics[mark:]

    def _reads_region(self, node: ast.Expr) -> bool:
        """Whether a value may differ from item to item of an enclosing aggregate or `per`: it has a
        count() that no aggregate or `per` of its own sets the item of (definitions written out)."""
        stack, seen = [node], set()
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Call):
                if n.name == "count":
                    return True
                stack.extend(n.args)
            elif isinstance(n, ast.Ref):
                if n.name in self.v.defines and n.name not in seen:
                    seen.add(n.name)
                    stack.append(self.v.defines[n.name].expr)
            elif isinstance(n, ast.Per):  # over settlements or hexes its where reads the item around it
                if n.domain in ("settlement", "hex") and n.where is not None:
                    stack.append(n.where)
            elif isinstance(n, ast.Not):
                stack.append(n.operand)
            elif isinstance(n, (ast.BoolOp, ast.Compare, ast.BinOp)):
                stack.extend([n.left, n.right])
        return False

    def _over(self, node: ast.Expr, move: bool, region: str | None, single: bool = False, depth: int = 0) -> Over:
        """A number or truth value for each item of a list at once (see Over): count(S) of a set S
        that reads no item is S found once and counted in each item, and +, -, *, //, comparisons,
        `&`, `|` and `!` combine such lists; what else reads the item is evaluated item by item.
        Definitions are shared as Compiler._shared shares them, per list of items. `single`: the
        items are one-hex regions (settlements, hexes)."""
        if not self._reads_region(node):
            return False, self.compile(node, move=move, region=region).fn
        if depth < MAX_DEPTH:
            if isinstance(node, ast.Call) and node.name == "count" and len(node.args) == 1:
                if not self._reads_region(node.args[0]):
                    counts = _counts(self._expect(node.args[0], HEX, move=move, region=region).fn)
                    near = _next_to_n(node.args[0]) if single else None
                    if near is not None:
                        inner = self._expect(near[0], HEX, move=move, region=region).fn
                        return True, _near_counts(counts, inner, near[1])
                    return True, counts
            elif isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp)) and node.op in _ELEMENTWISE:
                left = self._over(node.left, move, region, single, depth + 1)
                right = self._over(node.right, move, region, single, depth + 1)
                general = _elementwise(_ELEMENTWISE[node.op], left, right)
                summed = self._near_sum(node, general, move, region) if single and node.op == "+" else None
                return True, summed or general
            elif isinstance(node, ast.Not):
                inner = self._over(node.operand, move, region, single, depth + 1)[1]
                return True, lambda c, items: [not v for v in inner(c, items)]
            elif isinstance(node, ast.Ref) and node.name in self.v.defines and node.name not in self._expanding:
                key = (node.name, move, region, single, self._trigger)
                if key not in self._overs:
                    self._expanding.append(node.name)
                    try:
                        got = self._over(self.v.defines[node.name].expr, move, region, single, depth + 1)
                        self._overs[key] = _shared_over(got)
                    finally:
                        self._expanding.pop()
                return self._overs[key]
        return True, _item_by_item(self.compile(node, move=move, region=region).fn)

    def _near_sum(self, node: ast.BinOp, general: Callable, move: bool, region: str | None) -> Callable | None:
        """`count(next-to(X, n)) + count(next-to(X, m)) + ...` (one X, each n written out) over up
        to NEAR_ITEMS one-hex items: each item's neighbours in X counted once and its value read
        off a table by that count (a sum of every n from 1 to 6 is the count itself), rather than
        a list per term and per `+` (_near_counts); `general` for more items. None for other sums."""
        terms, parts = [], [node]
        while parts:
            part = parts.pop()
            if isinstance(part, ast.BinOp) and part.op == "+":
                parts += [part.right, part.left]
            elif isinstance(part, ast.Call) and part.name == "count" and len(part.args) == 1:
                near = _next_to_n(part.args[0])
                if near is None:
                    return None
                terms.append(near)
            else:
                return None
        x = terms[0][0]
        if any(other != x for other, _ in terms) or self._reads_region(x):
            return None
        inner = self._expect(x, HEX, move=move, region=region).fn
        by_count = tuple(sum(k >= n for _, n in terms) for k in range(7))  # (a hex has at most six neighbours)

        def near_sum(c: Ctx, items: list[int]) -> list[int]:
            if len(items) > NEAR_ITEMS:
                return general(c, items)
            x, nbrs = inner(c), c.t.nbr_mask
            return [by_count[(nbrs[r.bit_length() - 1] & x).bit_count()] for r in items]

        return near_sum

    def _kept_items(self, domain: str, where: ast.Expr, move: bool, region: str | None) -> Callable:
        """keep(c, items): the items of an aggregate or `per` that its where keeps, in order. Over
        settlements and hexes a hex set keeps the items it meets (found once if it reads no item)
        and a truth value those where it holds; over the other domains the truth value decides."""
        if domain not in ("settlement", "hex"):
            return _keeper(self._over(where, move, domain))
        got = self.compile(where, move=move, region=region)
        if got.type == BOOL:
            return _keeper(self._over(where, move, region, True))
        f = got.fn
        if not self._reads_region(where):
            return lambda c, items: _meeting(f(c), items)

        def meeting(c: Ctx, items: list[int]) -> list[int]:
            saved, out = c.region, []
            for r in items:
                c.region = r
                if f(c) & r:
                    out.append(r)
            c.region = saved
            return out

        return meeting

    def _board_kept(self, where, domain: str, items: Callable, move: bool, region: str | None) -> tuple[Callable, Any]:
        """The items of an aggregate that its `where` may keep, and what of the where is left to
        test on them: a conjunct (`&`) that is a truth value of the board and the item alone (it
        reads no pieces, player, card or tile) rules out the same items in every position and for
        every player, so the items such conjuncts leave are found once per board (a rank over the
        hexes of one terrain looks at those hexes, not at every hex for every player), and only the
        other conjuncts are tested per evaluation (None if none is left). Items of the position
        (settlements, areas) are all kept, the where whole."""
        if domain in ("settlement", "area"):  # items of the position: nothing to keep per board
            return items, where
        parts, masks, tests, rest = [where] if where is not None else [], [], [], []
        while parts:
            part = parts.pop()
            if isinstance(part, ast.BoolOp) and part.op == "&":
                parts += [part.right, part.left]
                continue
            if not self.reads(part):  # (where itself is compiled, errors and all, by _where)
                sub = region if domain in ("settlement", "hex") else domain
                got = self._quiet(self.compile, part, move=move, region=sub)
                if got.type == BOOL:
                    hexes = self._one_hex_items(part, move, sub) if domain == "hex" else None
                    if hexes is not None:
                        masks.append(hexes)
                    else:
                        tests.append(_keeper(self._quiet(self._over, part, move, sub, domain in ("settlement", "hex"))))
                    continue
            rest.append(part)
        if not tests and not masks:
            return items, where
        key = self._new_key()

        def kept(c: Ctx) -> list[int]:
            found = c.t.cache.get(key)
            if found is None:
                if masks:  # (domain hex) the hexes every one-hex conjunct holds, read off in C
                    m = c.t.all
                    for hexes in masks:
                        m &= hexes(c)
                    found = list(map(bits(c.t.n).__getitem__, bit_list(m)))
                else:
                    found = items(c)
                for test in tests:
                    found = test(c, found)
                c.t.cache[key] = found
            return found

        return kept, reduce(lambda a, b: ast.BoolOp("&", a, b, pos=where.pos), rest) if rest else None

    def _one_hex_items(self, node: ast.Expr, move: bool, region: str | None) -> Fn | None:
        """For `count(S) OP k` (k written out, S reading no item) over one-hex items: the hexes
        where it holds, as a hex set (a hex's count is 1 in S, else 0); None for other forms."""
        if not (
            isinstance(node, ast.Compare)
            and isinstance(node.right, ast.Num)
            and isinstance(node.left, ast.Call)
            and node.left.name == "count"
            and len(node.left.args) == 1
            and not self._reads_region(node.left.args[0])
        ):
            return None
        holds = _COMPARE[node.op]
        ones, zeros = holds(1, node.right.value), holds(0, node.right.value)
        f = self._quiet(self._expect, node.left.args[0], HEX, move=move, region=region).fn
        if ones and zeros:
            return lambda c: c.t.all
        if ones:
            return f
        if zeros:
            return lambda c: (a := c.t.all) ^ (a & f(c))
        return lambda c: 0


# ---- runtime helpers (the primitives' meaning) ------------------------------
def _union(table: Mapping[str, int], names: Sequence[str]) -> int:
    """The hexes of any of these names (terrains or locations; a card's faces come as a tuple)."""
    m = 0
    for n in names:
        m |= table.get(n, 0)
    return m


def _own(c: Ctx) -> int:
    """The word `own` (a function of its own so that callers can read it inline)."""
    return c.own[c.p]


def _next_to_own(c: Ctx) -> int:
    """next-to(own): the neighbourhood the engine keeps with the pieces (Ctx.nb), else grown."""
    nb = c.nb
    return nb[c.p] if nb is not None else c.t.grow(c.own[c.p])


def _floordiv(a: int, b: int) -> int:
    return a // b if b else 0


def _items(domain: str) -> Callable[[Ctx], list[int]]:
    if domain == "line":
        return lambda c: c.t.lines
    if domain == "sector":
        return lambda c: c.t.sectors
    if domain == "area":
        return lambda c: c.areas()
    if domain == "side":
        return lambda c: c.t.sides
    if domain == "field":
        return lambda c: c.t.fields
    if domain == "board":
        return lambda c: [c.t.all]
    if domain == "settlement":
        return lambda c: list(map(bits(c.t.n).__getitem__, bit_list(c.own[c.p])))
    return lambda c: Hexes(bits(c.t.n)[: c.t.n])  # (a new list, in C)


#: Domains whose items are the board's, the same in every position.
_BOARD_ITEMS = ("line", "sector", "side", "field", "board")


#: A board's calls of `min(count(!S) over D) == 0` from which _by_top_hex's index is built (its
#: 6.5 us on 51 fields cost what 4 calls of _covers_some save; a final score sheet of 2-4 players
#: needs none, a bot's playouts on one board many).
INDEX_FROM = 4


def _by_top_hex(t, items: list[int]) -> tuple[int, dict[int, int], bool, bool]:
    """A board domain's items by their top hex (its index + 1, the item's bit_length), built in C
    calls once per board (the tables are new each game): the mask of those hexes, each with its
    item; whether some item is empty or there are none (min() of count(!S) is then 0); and whether
    the index holds, each item a different top hex and all of them on the board, t.all being every
    index below t.n (else every item is looked at)."""
    by_top = dict(zip(map(int.bit_length, items), items, strict=False))
    if not items or 0 in by_top:
        return 0, by_top, True, False
    if len(by_top) < len(items) or max(by_top) > t.n:
        return 0, by_top, False, False
    return sum(map(bits(t.n + 1).__getitem__, by_top)) >> 1, by_top, False, True  # (distinct bits: sum is or)


def _covers_some(s: int, items: list[int], every: int) -> bool:
    """Whether s holds every board hex of some item (min() of no items is 0), item by item in C."""
    out = every ^ (every & s)
    return not items or 0 in map(out.__and__, items)


def _covers_one(s: int, items: list[int], index: tuple[int, dict[int, int], bool, bool], every: int) -> bool:
    """Whether s holds every board hex of some item (count(!s) is 0 in it; min() of no items is 0):
    only items whose top hex is in s can be, by _by_top_hex's index where it holds."""
    tops, by_top, always, indexed = index
    if always:
        return True
    if not indexed:
        return _covers_some(s, items, every)
    hit = s & tops
    while hit:
        i = hit.bit_length()
        hit ^= 1 << (i - 1)
        r = by_top[i]
        if r & s == r:
            return True
    return False


class Hexes(list):
    """Every hex of the board as an item of its own, in index order (the items of domain `hex`):
    count(S) in each is a bit of S (_counts)."""

    __slots__ = ()


def _next_to_side(node: ast.BoolOp) -> tuple[ast.Expr, ast.Call, bool] | None:
    """For `A & next-to(B)` or `A & !next-to(B)` (either way round): A, the call next-to(B), and
    whether it is not negated; None for any other form."""
    for a_node, b_node in ((node.left, node.right), (node.right, node.left)):
        near = not isinstance(b_node, ast.Not)
        if not near:
            b_node = b_node.operand
        if isinstance(b_node, ast.Call) and b_node.name == "next-to" and len(b_node.args) == 1:
            return a_node, b_node, near
    return None


def _near(a: int, b: int, t) -> int:
    """`a & next-to(b)`: hex by hex of a when a is the smaller side and small (a hex costs what it
    costs t.grow's loop), else through t.grow(b) (kbdsl.bitset.grower)."""
    if not a & (a - 1):  # one hex (a build) or none
        return a if a and t.nbr_mask[a.bit_length() - 1] & b else 0
    n = a.bit_count()
    if n < 6 and n <= b.bit_count():
        nbrs, out = t.nbr_mask, 0
        while a:
            rest = a & (a - 1)  # without the lowest bit (see kbdsl.bitset.extend_bits)
            low = a ^ rest
            if nbrs[low.bit_length() - 1] & b:
                out |= low
            a = rest
        return out
    return a & t.grow(b)


def _touching(mask: int, n: int, t) -> int:
    """Hexes with at least n neighbours in mask: per direction, the hexes whose neighbour that way
    is in mask are a masked shift of it (Tables.shifts), counted bit-sliced up to n (_touching_code,
    once per board shape and n); a hex with a neighbour in no direction (Tables.odd) is counted hex
    by hex."""
    if n <= 1:
        return t.grow(mask)
    if n == len(t.shifts):  # a neighbour in every direction: the shifts' intersection
        out = t.all
        for shift in t.shifts:
            out &= shift(mask)
            if not out:
                break
    else:
        key = ("touching", n)
        try:  # the board shape's function (a subscript is cheaper than .get)
            counted = t.shape_cache[key]
        except KeyError:
            counted = _of_shape(t, key, lambda steps: _touching_code(steps, n))
        out = counted(mask)
    if t.odd:
        nbrs = t.nbr_mask
        out ^= out & t.odd
        for i in bit_list(t.odd & t.grow(mask)):
            if (nbrs[i] & mask).bit_count() >= n:
                out |= 1 << i
    return out


def _touching_in(a: int, mask: int, n: int, t) -> int:
    """`a & next-to(mask, n)`: with a neighbour in every direction asked for, the shifts'
    intersection starts at a (a few hexes of a end it after a shift or two); else _touching's."""
    if n == len(t.shifts) and not t.odd:
        out = a & t.all
        for shift in t.shifts:
            if not out:
                break
            out &= shift(mask)
        return out
    return a & _touching(mask, n, t)


def _touching_code(steps: list[list[int]], n: int) -> Callable[[int], int]:
    """_touching's count on one board shape as straight-line code: per direction, mask's masked
    shift, added bit-sliced up to n (g{k}: the hexes with at least k such neighbours so far; after
    d directions a hex has at most d); part by part (kbdsl.bitset.by_parts)."""

    def code(part: Sequence[Sequence[int]], m: str, to: str) -> list[str]:
        g = [f"g{k}" for k in range(n)] + [to]  # g[k], k >= 1: at least k (the last: the result)
        lines = [f"{' = '.join(g[1:])} = 0"]
        for d, step in enumerate(part):
            lines.append(f"s = {shift_text(m, shift_table(step))}")
            lines += [f"{g[k]} |= {g[k - 1]} & s" for k in range(min(n, d + 1), 1, -1)]
            lines.append(f"{g[1]} |= s")
        return lines

    lines = ["def touching(m):", *("    " + line for line in by_parts(steps, parts(steps), code, f"g{n}"))]
    lines.append(f"    return g{n}")
    space: dict[str, Any] = {}
    exec("\n".join(lines), space)  # only ints: the board's own masks and offsets
    return space["touching"]


def _within(mask: int, n: int, t) -> int:
    reach = frontier = mask
    for _ in range(n):
        frontier = t.grow(frontier)
        frontier ^= frontier & reach
        reach |= frontier
    return reach ^ mask  # reach holds mask


def _linked(c: Ctx, targets: int) -> int:
    """Hexes of `targets` touched by an own area that touches another hex of `targets`: an area
    reaches the hexes of targets on or next to its own hexes that are on or next to targets (few:
    looked at one by one, rather than growing the area)."""
    out = 0
    t = c.t
    nbrs = t.nbr_mask
    near = t.grow(targets) | targets  # an area that meets none of these touches no hex of targets
    for area in c.areas():
        touch = area & near
        if touch:
            reach = 0
            while touch:
                rest = touch & (touch - 1)
                low = touch ^ rest
                reach |= (nbrs[low.bit_length() - 1] | low) & targets
                touch = rest
            if reach & (reach - 1):  # two hexes or more
                out |= reach
    return out


def _line_end(mask: int, n: int, t) -> int:
    """Hexes h such that h+d, h+2d, ..., h+n*d are all in mask for some direction d."""
    return _line_ends(t, n)(mask)


def _line_ends(t, n: int) -> Callable[[int], int]:
    """_line_end's compiled function for t's board shape and n (not remembered per mask: in play a
    player's settlements change between two looks at them, so a memo of masks seldom hits)."""
    return _of_shape(t, ("line-end", n), lambda steps: _line_end_code(steps, n))


#: What expressions derive from a board's step lists alone, per board shape and key: boards of one
#: shape share those lists (kbdsl.tables.Shape), so a new layout of known boards builds nothing
#: again. An entry keeps its steps alive and serves only those.
_BY_SHAPE: ByOwner[Any] = ByOwner()


def _of_shape(t, key: tuple, build: Callable[[list[list[int]]], Any]) -> Any:
    """build(t.steps), made once per board shape and kept with the shape (Tables.shape_cache,
    which every layout of the shape shares: a new board of a known shape misses nothing)."""
    found = t.shape_cache.get(key)
    if found is None:
        found = t.shape_cache[key] = _of_steps(t.steps, key, build)
    return found


def _of_steps(steps: list[list[int]], key: tuple, build: Callable[[list[list[int]]], Any]) -> Any:
    """build(steps), made once per board shape (what one shape's compiled functions share)."""
    hit = _BY_SHAPE.get(steps, key)
    return _BY_SHAPE.put(steps, key, build(steps)) if hit is None else hit


def _line_end_code(steps: list[list[int]], n: int) -> Callable[[int], int]:
    """_line_end on one board shape for one n as one function of a few masked shifts per axis
    (written inline: a shifter call per step cost two fifths of the instructions). A big-int
    operation costs as much as some ten bytecodes, so the code is laid out to need few: see
    _axis_code. Where the shape's parts (boards that touch none of the others) step by different
    offsets, no one offset serves an axis, so each part gets its own code (kbdsl.bitset.by_parts)."""
    starts = (
        [0] if all(_period([_far_steps(steps[d], k) for k in range(n + 1)], n)[0] <= n for d in AXES) else parts(steps)
    )

    def code(part: Sequence[Sequence[int]], m: str, to: str) -> list[str]:
        lines = [f"{to} = 0"]
        for d in AXES:
            fwd = [_far_steps(part[d], k) for k in range(n + 1)]
            back = [_far_steps(part[d + 3], k) for k in range(n + 1)]
            lines += _axis_code(fwd, back, n, m, to)
        return lines

    lines = ["def line_end(m):", *("    " + line for line in by_parts(steps, starts, code))]
    lines.append("    return out")
    space: dict[str, Any] = {}
    exec("\n".join(lines), space)  # only ints: the board's own masks and offsets
    return space["line_end"]


def _period(fwd: list[list[int]], n: int) -> tuple[int, int]:
    """(p, o) for the fewest p <= n steps (fwd[p]: p steps along one way) that move every hex that
    has them by one offset o, or (n + 1, 0) if there are none."""
    return next(
        ((p, offs.pop()) for p in range(1, n + 1) if len(offs := {j - i for i, j in enumerate(fwd[p]) if j >= 0}) == 1),
        (n + 1, 0),
    )


def later_parts(t) -> int:
    """The first hex of the second of the board shape's parts that no step joins (each a range of
    hexes, kbdsl.bitset.parts), 0 if there is one part: what comes after it is often empty of pieces."""
    return _of_shape(t, ("parts",), lambda steps: ([*parts(steps), 0])[1])


def _axis_code(fwd: list[list[int]], back: list[list[int]], n: int, m: str = "m", out: str = "out") -> list[str]:
    """Lines adding to `out` the hexes h with fwd^1 h .. fwd^n h in m, and those with back^1 h ..
    back^n h in m (fwd[k], back[k]: k steps along one axis, each way). When p steps move every
    hex by one offset o (p = 1 along a row, 2 on a diagonal of an offset layout), m[x], m[x + o],
    ... m[x + (c - 1)o] is one run set R_c of unmasked shifts, shared: the steps k = r, r + p, ..
    (one class per r) are R_c read at fwd^r h, and for the far end at back^kmax h, one masked
    pull each; class r = 0 is a plain shift. With p = 2 the odd class is pulled one step back
    once, and both ends read it by plain shifts; sets read at one offset are shifted once, as
    their intersection (for odd n, the same at both ends). Each masked pull, or else a last mask,
    keeps only hexes whose n steps stay on the board, so the garbage of the unmasked shifts drops.
    `m` and `out`: the names of the mask and of the result in the lines."""
    size = len(fwd[0])
    p, o = _period(fwd, n)  # (n + 1, 0): no period within n steps, every step is a class of its own
    classes = [ks for r in range(p) if (ks := [k for k in range(1, n + 1) if k % p == r])]
    valid_fwd = sum(1 << i for i in range(size) if fwd[n][i] >= 0)
    valid_back = sum(1 << i for i in range(size) if back[n][i] >= 0)
    top = max(map(len, classes))
    lines, run = [], {1: m}
    for c in range(2, top + 1):
        lines.append(f"r{c} = {run[c - 1]} & {_shift(m, (c - 1) * o)}")
        run[c] = f"r{c}"
    near: list[tuple[str, int]] = []  # plain parts of each end: (run set, offset it is read at)
    far: list[tuple[str, int]] = []
    masked: tuple[list[str], list[str]] = ([], [])  # masked pulls of each end
    temps = []  # lines binding y and z, under the guard
    for ks in classes:
        x = run[len(ks)]
        if ks[0] == p:  # class r = 0: steps p, 2p, ...
            near.append((x, o))
            far.append((x, -len(ks) * o))
        elif p == 2 <= n:  # the odd steps: x pulled one step back once is read by plain shifts at both ends
            temps.append(f"y = {_pull(x, back[1])}")
            near.append(("y", o))
            far.append(("y", -((ks[-1] - 1) // 2) * o))
        else:
            masked[0].append(_pull(x, fwd[ks[0]], valid_fwd))
            masked[1].append(_pull(x, back[ks[-1]], valid_back))
    ends = [_by_offset(near), _by_offset(far)]
    both = sorted(v for v, _ in ends[0] if " & " in v and v in {w for w, _ in ends[1]})
    for i, z in enumerate(both):
        temps.append(f"z{i} = {z[1:-1]}")
        ends = [[(f"z{i}" if v == z else v, off) for v, off in end] for end in ends]
    texts = []
    for end, pulls, valid in zip(ends, masked, (valid_fwd, valid_back), strict=True):
        parts = [_shift(v, off) for v, off in end] + pulls
        texts.append(" & ".join(parts + ([] if pulls else [str(valid)])))  # else: keep hexes whose steps stay on
    body = [*temps, f"{out} |= {texts[0]} | {texts[1]}"]
    return lines + ([f"if {run[top]}:", *("    " + line for line in body)] if top >= 2 else body)


def _by_offset(parts: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Plain parts grouped by offset: (the intersection of the run sets read there, offset)."""
    by: dict[int, list[str]] = {}
    for v, off in parts:
        by.setdefault(off, []).append(v)
    return [(f"({' & '.join(vs)})" if len(vs) > 1 else vs[0], off) for off, vs in by.items()]


def _shift(var: str, o: int) -> str:
    """The Python expression whose bit h is bit h + o of `var`."""
    return var if not o else f"({var} >> {o})" if o > 0 else f"({var} << {-o})"


def _pull(var: str, far: list[int], valid: int | None = None) -> str:
    """The Python expression whose bit h, for h in `valid` (default: every h with far[h] >= 0), is
    bit far[h] of `var` (else 0): with a step list, `var` moved back one step."""
    by: dict[int, int] = {}
    for i, j in enumerate(far):
        if (j >= 0) if valid is None else (valid >> i) & 1:
            by[j - i] = by.get(j - i, 0) | 1 << i
    return "(" + (" | ".join(f"{_shift(var, o)} & {mask}" for o, mask in by.items()) or "0") + ")"


def _far_steps(step: Sequence[int], k: int) -> list[int]:
    """The step list of k steps in one direction (-1 where the way leaves the board)."""
    far = list(range(len(step)))
    for _ in range(k):
        far = [step[j] if j >= 0 else -1 for j in far]
    return far


def _same_terrain(mask: int, t) -> int:
    """The terrains met by mask, terrain by terrain (a build meets one: a table per hex, built
    for each new board, cost more than a game's calls; a hex has one terrain, so one hex stops at it)."""
    out = 0
    if not mask & (mask - 1):
        for m in t.terrain.values():
            if m & mask:
                return m
        return 0
    for m in t.terrain.values():
        if m & mask:
            out |= m
    return out


#: The step directions (kbdsl.board.DIRECTIONS) of the three axes, and of the two that are not
#: horizontal lines (direction 0 runs along a line).
AXES, DIAGONALS = (0, 1, 2), (1, 2)


#: From this many hexes on, _straight_run finds the runs by masked shifts (_run_code); fewer (a
#: turn's builds) are looked at hex by hex.
RUN_SHIFTS_FROM = 6


def _straight_run(mask: int, n: int, t, axes: tuple[int, ...] = AXES) -> int:
    """Hexes of mask on a straight run (along one of `axes`) of at least n consecutive hexes of
    mask: the union of the runs of exactly n hexes of mask, each found from its first hex (by
    masked shifts from RUN_SHIFTS_FROM hexes on: a final position's pieces cost the loop about
    six times as much; n hexes are looked up among the runs)."""
    k = mask.bit_count()
    if k < n:
        return 0
    if k == n:  # all of mask or nothing: one of the board shape's runs of n (a turn's builds)
        key = ("run-set", n, axes)
        try:  # (a subscript is cheaper than .get)
            found = t.shape_cache[key]
        except KeyError:
            found = _of_shape(t, key, lambda steps: frozenset(r for rs in _runs(steps, n, axes) for r in rs))
        return mask if mask in found else 0
    if k >= RUN_SHIFTS_FROM:
        key = ("run-shifts", n, axes)
        try:  # the board shape's function (a subscript is cheaper than .get)
            shifted = t.shape_cache[key]
        except KeyError:
            shifted = _of_shape(t, key, lambda steps: _run_code(steps, n, axes))
        return shifted(mask)
    key = ("runs", n, axes)
    try:  # the board shape's runs of n hexes
        runs = t.shape_cache[key]
    except KeyError:
        runs = _of_shape(t, key, lambda steps: _runs(steps, n, axes))
    out, rest = 0, mask
    while rest:
        low = rest & (rest - 1)
        for r in runs[(rest ^ low).bit_length() - 1]:
            if r & mask == r:
                out |= r
        rest = low
    return out


def _run_code(steps: list[list[int]], n: int, axes: tuple[int, ...]) -> Callable[[int], int]:
    """_straight_run on one board shape for one n and axes as masked shifts (_pull), per axis: the
    hexes starting a run of n, by doubling (a hex starting a run of L whose hex s <= L steps on
    starts one too starts a run of L + s), stopping where none is left; then the runs spread from
    their starts the same way (the starts and the hexes s <= C steps past them cover C + s); part
    by part (kbdsl.bitset.by_parts)."""

    def code(part: Sequence[Sequence[int]], m: str, to: str) -> list[str]:
        lines = [f"{to} = 0"]
        for d in axes:
            indent, size, var = "", 1, m
            while size < n:
                s = min(size, n - size)
                lines += [f"{indent}a = {var} & {_pull(var, _far_steps(part[d], s))}", f"{indent}if a:"]
                indent, size, var = indent + "    ", size + s, "a"
            cover = 1
            while cover < n:
                s = min(cover, n - cover)
                lines.append(f"{indent}a |= {_pull('a', _far_steps(part[d + 3], s))}")
                cover += s
            lines.append(f"{indent}{to} |= {var}")
        return lines

    lines = ["def runs(m):", *("    " + line for line in by_parts(steps, parts(steps), code))]
    lines.append("    return out")
    space: dict[str, Any] = {}
    exec("\n".join(lines), space)  # only ints: the board's own masks and offsets
    return space["runs"]


def _runs(steps: list[list[int]], n: int, axes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Per hex, the runs of n hexes from it along each of the axes (those that stay on the board)."""
    out = []
    for i in range(len(steps[0])):
        found = []
        for d in axes:
            run, j = 0, i
            for _ in range(n):
                if j < 0:
                    break
                run |= 1 << j
                j = steps[d][j]
            else:
                found.append(run)
        out.append(tuple(found))
    return out


def _aligned(mask: int, n: int, t) -> int:
    """Hexes of mask on a straight line (along one of the three axes, as far as the board goes) that
    holds at least n hexes of mask, whatever lies between them."""
    if mask.bit_count() < n:
        return 0
    try:  # the board shape's lines through each hex (a subscript is cheaper than .get)
        lines = t.shape_cache[_LINES]
    except KeyError:
        lines = _of_shape(t, _LINES, _lines_through)
    out = 0
    for table in lines:
        seen, rest = 0, mask
        while rest:
            low = rest & (rest - 1)
            i = (rest ^ low).bit_length() - 1
            rest = low
            if not seen >> i & 1:
                line = table[i] & mask
                seen |= line
                if line.bit_count() >= n:
                    out |= line
    return out


_LINES = ("lines-through",)


def _lines_through(steps: list[list[int]]) -> list[list[int]]:
    """Per axis and hex, the whole straight line through it along that axis, to the board's edges."""
    out = []
    for d in AXES:
        step, back, table = steps[d], steps[d + 3], []
        for i in range(len(step)):
            j = i
            while back[j] >= 0:  # to the start of the line through i
                j = back[j]
            line = 0
            while j >= 0:
                line |= 1 << j
                j = step[j]
            table.append(line)
        out.append(table)
    return out


def _straight(origin: int, n: int, t) -> int:
    """The hexes exactly n steps from origin in one of the 6 directions (a table per board shape and n)."""
    if origin < 0:
        return 0
    table = t.shape_cache.get(("straight", n))
    if table is None:
        table = _of_shape(t, ("straight", n), lambda steps: [_straight_from(i, n, steps) for i in range(len(steps[0]))])
    return table[origin]


def _straight_from(origin: int, n: int, steps: list[list[int]]) -> int:
    out = 0
    for step in steps:
        j = origin
        for _ in range(n):
            j = step[j]
            if j < 0:
                break
        else:
            out |= 1 << j
    return out


#: A walk from each of a move's sources at once: (sources, through, tables, free) -> the
#: (source bit, walk & free) pairs of the sources whose walk holds a hex of free, lowest first.
Each = Callable[[int, int, Any, int], list[tuple[int, int]]]
#: How a board shape counts slides (or rays) from many sources (_slide_counter, _ray_counter): (firsts,
#: ends), firsts(sources, through) per direction the sources whose walk that way ends on a hex and
#: the hexes where a walk that way stops (found once for all sources), ends[d](s, stops[d]) that hex
#: for a source of firsts[d]; () where the shape's walks are not counted so.
SlideCounter = (
    tuple[
        Callable[[int, int], tuple[tuple[int, ...], tuple[int, ...]]],
        tuple[Callable[[int, int], int], ...],
    ]
    | tuple[()]
)


def _once_a_move(
    f: Fn,
    key: object,
    walk: Callable[[int, int, Any], int],
    each: Each,
    counter: Callable[[Any], SlideCounter] | None = None,
) -> Fn:
    """slide(S) or ray(S) for an S that lifting the moving piece changes at most on its own hex,
    which neither reads: S is found once for all the sources of a move (Ctx.lifted, set by the
    engine while it lifts each source in turn), then walked from each. When the move's whole
    target is that walk, the engine walks from all its sources in one call: `once.each` is
    (S's function, the walk over sources: `_slide_each`, `_ray_each`), and `once.counter` the
    board shape's count of the walks by directions (`_slide_counter`, `_ray_counter`)."""

    def once(c: Ctx) -> int:
        memo = c.lifted
        if memo is None:
            return walk(c.origin, f(c), c.t)
        try:
            through = memo[key]
        except KeyError:
            through = memo[key] = f(c)
        return walk(c.origin, through, c.t)

    once.each = (f, each)  # type: ignore[attr-defined]
    once.counter = counter  # type: ignore[attr-defined]
    return once


def _slide(origin: int, through: int, t) -> int:
    """For each direction, the farthest hex reached from origin stepping only onto hexes of `through`."""
    if origin < 0 or not through & t.nbr_mask[origin]:  # (no first step: a piece hemmed in)
        return 0
    out = 0
    for ray in _board_rays(t)[origin]:
        last = -1
        for j in ray:
            if not (through >> j) & 1:
                break
            last = j
        if last >= 0:
            out |= 1 << last
    return out


def _ray(origin: int, through: int, t) -> int:
    """For each direction, the first hex of `through` met stepping from origin (what lies before it is passed over)."""
    if origin < 0:
        return 0
    out = 0
    for ray in _board_rays(t)[origin]:
        for j in ray:
            if (through >> j) & 1:
                out |= 1 << j
                break
    return out


def _slide_each(sources: int, through: int, t, free: int) -> list[tuple[int, int]]:
    """_slide(s, through) & free from each hex s of sources (an Each): see _walk_each_code."""
    return _walk_each(t, True)(sources, through, t, free)


def _ray_each(sources: int, through: int, t, free: int) -> list[tuple[int, int]]:
    """_ray(s, through) & free from each hex s of sources (an Each): see _walk_each_code."""
    return _walk_each(t, False)(sources, through, t, free)


def _slide_counter(t) -> SlideCounter:
    """The board shape's SlideCounter (_counter_code), made once per shape. From a source whose
    neighbour in a direction is of `through`, a slide through it goes that way and ends on a hex
    of `through` (the last before a hex not of it, or the edge), another for each direction: a
    slide's targets from many sources are counted by bit counts (kbdsl.engine.groups.WalkRun)
    without walking from any."""
    try:  # (a subscript is cheaper than .get)
        return t.shape_cache[_COUNTER]
    except KeyError:
        return _of_shape(t, _COUNTER, _counter_code)


def _counter_code(steps: list[list[int]]) -> SlideCounter:
    """_slide_counter on one board shape: firsts as one expression (per direction, `through` moved
    back one step, _pull, of `sources`; and the hexes where a slide stops: all but those of
    `through` whose next hex is of it, the same pull), and per direction the end of a slide as
    the nearest hex of its ray where it stops (the lowest or highest, where every step that way
    goes up or down the index, as in _walk_each_code); () where a direction goes both ways or
    two rays from one hex meet (their slides may end on one hex: _counted_ways)."""
    ways, rays = _counted_ways(steps)
    if ways is None:
        return ()
    ends = _ends(ways, rays)
    terms = ", ".join(f"sources & (p{d} := {_pull('through', step)})" for d, step in enumerate(steps))
    stops = ", ".join(f"every ^ (through & p{d})" for d in range(len(steps)))
    every = (1 << len(steps[0])) - 1
    return eval(f"lambda sources, through: (({terms},), ({stops},))", {"every": every}), ends  # ints only


def _ray_counter(t) -> SlideCounter:
    """The board shape's count of rays from many sources (_ray_counter_code), made once per shape:
    from a source whose ray in a direction meets `through`, a ray that way ends on the nearest hex
    of `through`, another for each such direction (kbdsl.engine.groups.WalkRun counts them)."""
    try:  # (a subscript is cheaper than .get)
        return t.shape_cache[_RAY_COUNTER]
    except KeyError:
        return _of_shape(t, _RAY_COUNTER, _ray_counter_code)


def _ray_counter_code(steps: list[list[int]]) -> SlideCounter:
    """_ray_counter on one board shape: firsts as one function (per direction, the hexes whose ray
    meets `through`: `through` moved back one step, then what that covers moved back 1, 2, 4, ...
    steps more and joined, up to the longest ray, of `sources`; a ray stops on `through` in every
    direction), and per direction the end of a ray as the nearest hex of its ray in `through`
    (as _counter_code; () where it gives ())."""
    ways, rays = _counted_ways(steps)
    if ways is None:
        return ()
    lines = ["def firsts(sources, through):"]
    for d, step in enumerate(steps):
        longest = max(ray[d].bit_count() for ray in rays)
        lines.append(f"    r = {_pull('through', step)}")  # covers rays of 1 step
        far, k = step, 1
        while k < longest:  # ... of k steps (far: k steps at once): then of 2k
            lines.append(f"    r |= {_pull('r', far)}")
            far, k = [far[j] if j >= 0 else -1 for j in far], k + k
        lines.append(f"    f{d} = sources & r")
    lines.append(f"    return ({', '.join(f'f{d}' for d in range(len(steps)))},), (through,) * {len(steps)}")
    space: dict[str, Any] = {}
    exec("\n".join(lines), space)  # only ints: the board's own masks and offsets
    return space["firsts"], _ends(ways, rays)


def _ends(ways: list[bool], rays: list[tuple[int, ...]]) -> tuple[Callable[[int, int], int], ...]:
    """Per direction, the end of a walk from s: the nearest hex of its ray in `stops` (the lowest
    where the direction goes up the index, else the highest)."""
    ends = []
    for d, up in enumerate(ways):
        end = "(y := table[s] & stops) & -y" if up else "1 << ((table[s] & stops).bit_length() - 1)"
        ends.append(eval(f"lambda s, stops: {end}", {"table": [ray[d] for ray in rays]}))  # ints only
    return tuple(ends)


def _counted_ways(steps: list[list[int]]) -> tuple[list[bool] | None, list[tuple[int, ...]]]:
    """Whether each direction steps up the hex index (else down), and the rays (_ray_masks); None
    for the first where a direction goes both ways or two rays from one hex meet."""
    rays = _ray_masks(steps)
    for from_i in rays:
        seen = 0
        for ray in from_i:
            if ray & seen:
                return None, rays
            seen |= ray
    ways = []
    for step in steps:
        up = {j > i for i, j in enumerate(step) if j >= 0}
        if len(up) > 1:
            return None, rays
        ways.append(up != {False})
    return ways, rays


_COUNTER, _RAY_COUNTER = ("slide-counter",), ("ray-counter",)


def _walk_each(t, slide: bool) -> Each:
    """The board shape's compiled walk from many sources (_walk_each_code), made once per shape."""
    key = _SLIDE_EACH if slide else _RAY_EACH
    try:  # (a subscript is cheaper than .get)
        return t.shape_cache[key]
    except KeyError:
        return _of_shape(t, key, lambda steps: _walk_each_code(steps, slide))


_SLIDE_EACH, _RAY_EACH = ("slide-each",), ("ray-each",)


def _walk_each_code(steps: list[list[int]], slide: bool) -> Each:
    """A walk from each of many sources as one function for one board shape, no loop along a
    ray: where every step of a direction goes up the hex index (or every one down), the hex a
    walk stops at is the lowest (highest) hex of its ray in a mask found once for all sources:
    for ray(), `through`; for slide(), every hex but those of `through` whose next hex that way
    is of `through` too (a hex that way not of `through` is met before one that is only when
    the first step is blocked, and `& through` drops it). A board with a direction that goes
    both ways walks ray by ray (_slide, _ray)."""
    ways = []
    for step in steps:
        up = {j > i for i, j in enumerate(step) if j >= 0}
        if len(up) > 1:
            one = _slide if slide else _ray
            return lambda sources, through, t, free: [
                (1 << s, m) for s in bit_list(sources) if (m := one(s, through, t) & free)
            ]
        ways.append(up != {False})
    lines = ["def each(sources, through, t, free):"]
    for d, step in enumerate(steps):
        if not slide:
            lines.append(f"    k{d} = through")
            continue
        # hexes whose next hex in direction d is of `through`: `through` moved back one step
        lines.append(f"    k{d} = ~(through & ({_pull('through', step)}))")
    lines += [
        "    free &= through",
        "    out = []",
        "    while sources:",
        "        rest = sources & (sources - 1)",
        "        bit = sources ^ rest",
        "        sources = rest",
        f"        {', '.join(f'r{d}' for d in range(len(steps)))}, = rays[bit.bit_length() - 1]",
        "        m = 0",
    ]
    for d, up in enumerate(ways):
        lines.append(f"        y = r{d} & k{d}")
        lines.append("        m |= y & -y" if up else "        m |= (1 << y.bit_length()) >> 1")
    lines += ["        m &= free", "        if m:", "            out.append((bit, m))", "    return out"]
    rays = _ray_masks(steps)
    space: dict[str, Any] = {"rays": rays}
    exec("\n".join(lines), space)  # only ints: the board's own masks and offsets
    return space["each"]


def _ray_masks(steps: list[list[int]]) -> list[tuple[int, ...]]:
    """Per hex, the hexes stepping from it in each direction (_ray_mask), once per board shape:
    both walks compiled per shape (_walk_each_code, _counter_code) read them."""
    return _of_steps(
        steps, _RAY_MASKS, lambda steps: [tuple(_ray_mask(i, step) for step in steps) for i in range(len(steps[0]))]
    )


_RAY_MASKS = ("ray-masks",)


def _ray_mask(i: int, step: list[int]) -> int:
    """The hexes stepping from i in one direction (i itself left out)."""
    out, j = 0, step[i]
    while j >= 0:
        out |= 1 << j
        j = step[j]
    return out


def _board_rays(t) -> list[tuple[tuple[int, ...], ...]]:
    """The rays from each hex (`_rays`), made once per board shape: what _slide and _ray walk."""
    try:  # (a subscript is cheaper than .get)
        return t.shape_cache[_RAYS]
    except KeyError:
        return _of_shape(t, _RAYS, _rays)


_RAYS = ("rays",)


def _rays(steps: list[list[int]]) -> list[tuple[tuple[int, ...], ...]]:
    """Per hex, the hexes in each direction from it, nearest first (directions that leave the
    board at once left out): _slide and _ray walk these instead of stepping through the step lists."""
    out = []
    for i in range(len(steps[0])):
        found = []
        for step in steps:
            ray, j = [], step[i]
            while j >= 0:
                ray.append(j)
                j = step[j]
            if ray:
                found.append(tuple(ray))
        out.append(tuple(found))
    return out


def _ranked(items: Callable, value: Callable, keep: Callable | None, payouts: tuple[int, ...], shared: bool) -> Fn:
    """rank(): every player's gold found at once, kept for the other players (Ctx.memo: a score
    sheet asks once per player); `shared`: the values over every item are at hand (_rank)."""
    slot = object()

    def rank(c: Ctx) -> int:
        key = (slot, c.origin)
        memo = c.memo
        golds = memo.get(key)
        if golds is None:
            golds = memo[key] = _rank(c, items(c), value, keep, payouts, shared)
        return golds[c.p]

    return rank


def _rank(
    c: Ctx, items: list[int], value: Callable, keep: Callable | None, payouts: tuple[int, ...], shared: bool
) -> list[int]:
    """Per player, the gold of a rank(): per item, the players it keeps tied for the highest value
    get payouts[0], the next lower value payouts[1], ...; `shared`: the values over every item are
    those the where found (a definition both read), looked up rather than found over the kept items."""
    if not items:
        return [0] * len(c.own)
    me, rows, whole = c.p, [], True
    for q in range(len(c.own)):
        c.p = q
        kept = items if keep is None else keep(c, items)
        if kept is items:  # (keep returns the list itself when it keeps every item)
            rows.append(value(c, kept))
        elif not kept:  # (no values to find)
            rows.append({})
            whole = False
        elif shared:
            found = dict(zip(items, value(c, items), strict=True))
            rows.append({r: found[r] for r in kept})
            whole = False
        else:
            rows.append(dict(zip(kept, value(c, kept), strict=True)))  # (an item's values are those of its hexes)
            whole = False
    c.p = me
    golds = [0] * len(rows)
    if whole:  # every player in every item: the values item by item are the columns of the rows
        paid = len(payouts)
        for scores in zip(*rows, strict=True):
            levels = sorted(set(scores), reverse=True)
            for q, v in enumerate(scores):
                place = levels.index(v)
                if place < paid:
                    golds[q] += payouts[place]
        return golds
    rows = [row if isinstance(row, dict) else dict(zip(items, row, strict=True)) for row in rows]
    for r in items:
        scores = {q: row[r] for q, row in enumerate(rows) if r in row}
        if scores:
            levels = sorted(set(scores.values()), reverse=True)
            for q, v in scores.items():
                place = levels.index(v)
                if place < len(payouts):
                    golds[q] += payouts[place]
    return golds


#: How an aggregate's values over its items are found (Compiler._over): (True, f) with f(c, items)
#: the list of the values, one an item, or (False, f) with f(c) the value of every item.
Over = tuple[bool, Callable]


def _counts(f: Fn) -> Callable[[Ctx, list[int]], list[int]]:
    """count(S) in each item, S found once (it reads no item)."""

    def counts(c: Ctx, items: list[int]) -> list[int]:
        if not items:
            return []
        m = f(c)
        if type(items) is Hexes and (m := m & c.t.all).bit_count() * 8 < len(items):
            out = [0] * len(items)  # a few hexes of S: their items' counts are 1, the others' 0
            for i in bit_list(m):
                out[i] = 1
            return out
        return [(m & r).bit_count() for r in items]  # (faster than map over m.__and__, a slot wrapper)

    return counts


def _next_to_n(node: ast.Expr) -> tuple[ast.Expr, int] | None:
    """For next-to(X) or next-to(X, n) (n written out, 1 to 6): X and n; else None."""
    if not isinstance(node, ast.Call) or node.name != "next-to" or not 1 <= len(node.args) <= 2:
        return None
    if len(node.args) == 1:
        return node.args[0], 1
    n = node.args[1]
    return (node.args[0], n.value) if isinstance(n, ast.Num) and 1 <= n.value <= 6 else None


#: Up to this many one-hex items, count(next-to(X, n)) counts each item's neighbours in X.
NEAR_ITEMS = 8


def _near_counts(counts: Callable, inner: Fn, n: int) -> Callable[[Ctx, list[int]], list[int]]:
    """count(next-to(X, n)) in each of one-hex items: for a few, whether the item has n neighbours
    in X (a rank over a few hexes of the board does not find next-to(X, n) on the whole board)."""

    def near(c: Ctx, items: list[int]) -> list[int]:
        if len(items) > NEAR_ITEMS:
            return counts(c, items)
        x, nbrs = inner(c), c.t.nbr_mask
        return [1 if (nbrs[r.bit_length() - 1] & x).bit_count() >= n else 0 for r in items]

    return near


def _item_by_item(f: Fn) -> Callable[[Ctx, list[int]], list]:
    """f's value in each item, the item set as the context's region in turn."""

    def each(c: Ctx, items: list[int]) -> list:
        saved, out = c.region, []
        for r in items:
            c.region = r
            out.append(f(c))
        c.region = saved
        return out

    return each


def _and(x: list, y: list) -> list:
    return [a and b for a, b in zip(x, y, strict=True)]


def _or(x: list, y: list) -> list:
    return [a or b for a, b in zip(x, y, strict=True)]


#: The comparison operators of the language, on two values.
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


#: An operator on two lists of values, item by item.
def _mapped(f: Callable[[Any, Any], Any]) -> Callable[[list, list], list]:
    return lambda x, y: list(map(f, x, y))


_ELEMENTWISE: dict[str, Callable[[list, list], list]] = {
    **{op: _mapped(f) for op, f in {"+": operator.add, "-": operator.sub, "*": operator.mul, **_COMPARE}.items()},
    "//": lambda x, y: list(map(_floordiv, x, y)),
    "&": _and,
    "|": _or,
}


def _elementwise(op: Callable[[list, list], list], left: Over, right: Over) -> Callable[[Ctx, list[int]], list]:
    """An operator of two values over a list of items (at least one side differs from item to item)."""
    (lv, lf), (rv, rf) = left, right
    if lv and rv:
        return lambda c, items: op(lf(c, items), rf(c, items))
    if lv:
        return lambda c, items: op(lf(c, items), [rf(c)] * len(items))
    if op is _or or op is _and:  # `a | b` is a where a holds (`a & b`, where it fails), else b: b only if needed
        settles = op is _or

        def either(c: Ctx, items: list[int]) -> list:
            a = lf(c)
            return [a] * len(items) if bool(a) is settles else rf(c, items)

        return either
    return lambda c, items: op([lf(c)] * len(items), rf(c, items))


def _shared_over(over: Over) -> Over:
    """A definition's values over a list of items, found once per evaluation context and list (as
    Compiler._shared shares a value; the list is kept with them, so an id is never reused)."""
    if not over[0]:
        return over
    f, slot = over[1], object()

    def shared(c: Ctx, items: list[int]) -> list:
        key = (slot, c.p, c.origin)
        memo = c.memo
        hit = memo.get(key)
        if hit is not None and hit[0] is items:
            return hit[1]
        values = f(c, items)
        memo[key] = (items, values)
        return values

    return True, shared


def _keeper(over: Over) -> Callable[[Ctx, list[int]], list[int]]:
    """keep(c, items): the items where a truth value holds (the list itself if all)."""
    vec, f = over
    if not vec:
        return lambda c, items: items if f(c) else []

    def keep(c: Ctx, items: list[int]) -> list[int]:
        flags = f(c, items)
        return items if all(flags) else list(compress(items, flags))

    return keep


def _meeting(m: int, items: list[int]) -> list[int]:
    return [r for r in items if r & m]


#: Functions whose hexes are always hexes of their first argument.
_WITHIN_FIRST = frozenset({"slide", "ray", "straight-run", "diagonal-run"})


def hex_bound(node: ast.Expr, t, cards: Sequence[str], defines: Mapping[str, ast.Define]) -> int:
    """Hexes a hex-set expression can ever hold on these tables, whatever the position: bounded by
    the terrains, locations and board flags it names (`&` narrows, `|` joins, a word or function
    that depends on the pieces is every hex). `cards`: the terrains `card` and `drawn` may be."""

    def bound(n: ast.Expr, depth: int = 0) -> int:
        if depth > MAX_DEPTH:
            return t.all
        if isinstance(n, ast.BoolOp):
            a, b = bound(n.left, depth + 1), bound(n.right, depth + 1)
            return a & b if n.op == "&" else a | b
        if isinstance(n, ast.Ref):
            if n.name in ("buildable", "edge", "location", "special", "all"):
                return getattr(t, n.name)
            if n.name in defines:
                return bound(defines[n.name].expr, depth + 1)
            return t.all
        if isinstance(n, ast.Call) and n.args:
            names = [a.name for a in n.args if isinstance(a, ast.Ref)]
            if n.name == "terrain":
                terrains = {c for x in names for c in (cards if x in ("card", "drawn", "removed") else (x,))}
                return reduce(or_, (t.terrain.get(x, 0) for x in terrains), 0)
            if n.name == "location":
                return reduce(or_, (t.locations.get(x, 0) for x in names), 0)
            if n.name in _WITHIN_FIRST:
                return bound(n.args[0], depth + 1)
        return t.all

    return bound(node)
