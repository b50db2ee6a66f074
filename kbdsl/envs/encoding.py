"""The observation encoding shared by the PettingZoo, Gymnasium and OpenSpiel environments.

An observation is one flat float32 vector: planes over the board grid (every board of the rule
set stacked top to bottom, each hex at its row and column), then a vector of counts and flags.
Its layout (`Encoding.planes`, `Encoding.fields`) and so its size depend only on the rule set and
the player count, never on the setup. Seats are relative to the observer: seat 0 is the observer,
seat 1 the next to play after it, and so on. Only what the observer may see is read: its own
cards, never another hand or the deck order (tests/test_envs.py compares with `State.view`).

`Observer` keeps one observer's vector up to date incrementally: each plane remembers the mask it
last wrote and rewrites only the hexes that changed, so a step costs the move's changes, not the
board. docs/envs.md describes every plane and field; `VERSION` changes with any layout change.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import partial, reduce
from itertools import chain, compress, count
from operator import and_, ne, or_, xor

import numpy as np

from kbdsl.bitset import bit_list
from kbdsl.caches import ByOwner
from kbdsl.engine.setup import BaseGame
from kbdsl.engine.state import State
from kbdsl.ruleset import RuleSet

VERSION = 1
STAGES = ("choose", "target", "discard")  # kbdsl.envs.actions: the steps of one engine move


_CELLS: ByOwner[list[int]] = ByOwner()  # a board shape's ids -> their cells


@dataclass(frozen=True)
class Grid:
    """Where each board's hexes lie on the observation grid: boards stacked, rows then columns."""

    rows: int
    cols: int
    offsets: dict[str, int]  # board name -> its first row on the grid
    primary: str

    @classmethod
    def of(cls, rules: RuleSet) -> Grid:
        offsets, row, cols = {}, 0, 0
        for b in rules.boards:
            sections = [rules.sections[s] for s in rules.sections_for(b.name)]
            if not sections:
                continue
            srows = max(len(s.rows) for s in sections)
            scols = max(len(r) for s in sections for r in s.rows)
            offsets[b.name] = row
            row += b.grid[0] * srows
            cols = max(cols, b.grid[1] * scols)
        return cls(row, cols, offsets, rules.primary_board.name)

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def cells_of(self, ids: list[str]) -> list[int]:
        """The grid cell of each hex of a board (boards of one shape share `ids`: computed once)."""
        hit = _CELLS.get(ids)
        return _CELLS.put(ids, (), [self.cell(h) for h in ids]) if hit is None else hit

    def cell(self, hex_id: str) -> int:
        """The grid cell of a hex name ('r,c' on the primary board, 'board:r,c' on another)."""
        board, _, rc = hex_id.rpartition(":")
        r, c = (int(x) for x in rc.split(","))
        return (self.offsets[board or self.primary] + r) * self.cols + c


class Encoding:
    """The layout of observations for one rule set and player count (see the module docstring)."""

    def __init__(self, rules: RuleSet, players: int):
        self.rules, self.players = rules, players
        self.grid = Grid.of(rules)
        self.kinds = ["build", "end", *rules.actions]  # as BaseGame.kinds: the action kinds
        self.tile_names = list(rules.tiles)
        self.piece_kinds = [rules.piece_kind, *rules.kinds]
        self.deck = list(rules.deck)
        seats = [f"seat{s}" for s in range(players)]
        self.planes: list[str] = [
            *(f"terrain:{t}" for t in rules.terrains),
            "location",
            *(f"tiles-left:{t}" for t in self.tile_names),
            *(f"{s}:{k}" for s in seats for k in self.piece_kinds),
            *(f"{s}:taken" for s in seats),
            *(f"neutral:{k}" for k in rules.neutral),
            "blocked",
            "built-this-turn",
            "chosen-source",
        ]
        fields: list[tuple[str, int]] = [
            ("hand", len(self.deck)),  # the observer's cards: the played one and any beside it, by terrain
            ("wild", len(self.deck)),  # the terrain the observer plays its cards as, if it chose one
            ("drawn", len(self.deck)),  # the card a tile's action drew (face up)
            ("discard", len(self.deck)),
            ("removed", len(self.deck)),
            ("deck", 1),
            ("spare-cards", players),  # how many cards each seat holds beside the played one (public)
            ("choosing", 1),
            *((f"{s}:tiles:{st}", len(self.tile_names)) for s in seats for st in ("unused", "used", "new")),
            ("supply", players),
            *((f"supply:{k}", players) for k in rules.kinds),
            *((f"stock:{k}", 1) for k in rules.neutral),
            ("cards-in-play", len(rules.cards)),
            ("current", players),
            ("start-player", players),
            ("turn", 1),
            ("mandatory-left", 1),
            ("built", 1),
            ("pending", len(self.kinds)),
            ("pending-left", 1),
            ("pending-up-to", 1),
            ("ending", 1),
            ("over", 1),
            ("stage", len(STAGES)),
            ("chosen-kind", len(self.kinds)),
            ("gold", players),  # gold won during play so far (cards score at the end)
        ]
        self.fields = fields
        self.plane_index = {name: i for i, name in enumerate(self.planes)}
        self.field_offset: dict[str, int] = {}
        at = len(self.planes) * self.grid.cells
        for name, width in fields:
            self.field_offset[name] = at
            at += width
        self.vector_size = at - len(self.planes) * self.grid.cells
        self.size = at
        # for Observer.update: the one-hot fields' values, by the value they show (a card terrain or
        # None; a relative seat, an action kind or -1 for none, a stage)
        self.hot_card = {c: _one_hot(len(self.deck), i) for i, c in enumerate([*self.deck, None])}
        self.hot = [[_one_hot(n, i) for i in [*range(n), -1]] for n in (players, len(self.kinds), len(STAGES))]
        # ... and the vector's parts written separately: the cards, the supplies, the turn (start,
        # end, byte offset in the buffer, the struct's pack_into), and each seat's tiles held
        # (byte offset of seat 0's, pack_into of one seat's)
        vec_at = at - self.vector_size
        tiles, supply, current = (self.field_offset[f] - vec_at for f in ("seat0:tiles:unused", "supply", "current"))
        self.parts = [
            (a, b, 4 * (vec_at + a), struct.Struct(f"{b - a}f").pack_into)
            for a, b in ((0, tiles), (supply, current), (current, self.vector_size))
        ]
        self.tiles_at, self.pack_tiles = 4 * (vec_at + tiles), struct.Struct(f"{3 * len(self.tile_names)}f").pack_into
        self._seats: dict[int, SeatPlanes] = {}

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def plane_view(self, obs: np.ndarray) -> np.ndarray:
        """The planes of an observation as (plane, row, column), without copying."""
        g = self.grid
        return obs[: len(self.planes) * g.cells].reshape(len(self.planes), g.rows, g.cols)

    def field(self, obs: np.ndarray, name: str) -> np.ndarray:
        width = dict(self.fields)[name]
        return obs[self.field_offset[name] : self.field_offset[name] + width]

    def observer(self, game: BaseGame, player: int) -> Observer:
        return Observer(self, game, player)

    def seat_planes(self, player: int) -> SeatPlanes:
        """The planes and seats of `player`'s observers, made once (a new game makes new observers)."""
        hit = self._seats.get(player)
        if hit is None:
            hit = self._seats[player] = SeatPlanes(self, player)
        return hit

    def encode(self, state: State, player: int, stage: int = 0, kind: int = -1, source: int = -1) -> np.ndarray:
        """The observation of `player` from scratch (Observer does the same incrementally)."""
        return self.observer(state.game, player).update(state, stage, kind, source).copy()


class SeatPlanes:
    """What an observer of one seat reads its planes and seats by: the same for every game of an
    encoding (lists never changed once made)."""

    def __init__(self, enc: Encoding, player: int):
        n, pi, rules = enc.players, enc.plane_index, enc.rules
        self.seat = [(s - player) % n for s in range(n)]  # absolute seat -> relative seat
        self.order = sorted(range(n), key=self.seat.__getitem__)  # absolute seats in relative order
        self.tile_plane = {name: pi[f"tiles-left:{name}"] for name in enc.tile_names}
        self.tile_index = {name: i for i, name in enumerate(enc.tile_names)}
        self.others = enc.piece_kinds[1:]
        self.neutral_kinds = list(rules.neutral)
        self.no_neutral = [0] * len(self.neutral_kinds)
        # per absolute seat: the planes of its pieces by kind (settlements first) and of its taken tiles
        pieces = [[pi[f"seat{self.seat[s]}:{k}"] for k in enc.piece_kinds] for s in range(n)]
        self.mask_planes = [  # the binary planes update() rewrites: settlements by seat, each other kind
            # by seat, taken tiles by seat, neutral pieces by kind, then the three fixed ones
            *(pieces[s][0] for s in range(n)),
            *(pieces[s][1 + i] for i in range(len(self.others)) for s in range(n)),
            *(pi[f"seat{self.seat[s]}:taken"] for s in range(n)),
            *(pi[f"neutral:{k}"] for k in self.neutral_kinds),
            pi["blocked"],
            pi["built-this-turn"],
            pi["chosen-source"],
        ]


class Observer:
    """One player's observation of one game, updated in place from the state after each move."""

    def __init__(self, enc: Encoding, game: BaseGame, player: int):
        self.enc, self.game, self.player = enc, game, player
        n, g, t = enc.players, enc.grid, game.tables
        self.cell = g.cells_of(t.ids)  # hex index -> grid cell
        self.cell_array = _array_of(self.cell)
        self.nbytes = (t.n + 7) // 8
        self.counts: dict[int, dict[int, int]] = {}  # plane -> hex -> value (count planes)
        key = (id(enc), id(game))
        hit = _STATIC.get(key)
        if hit is not None and hit[0] is enc and hit[1] is game:  # another seat of the same game
            self.buf, self.masks = hit[2].copy(), dict(hit[3])
            self.floats = memoryview(self.buf)  # the buffer's float32 items, for writes of single values
        else:
            self.buf = np.zeros(enc.size, np.float32)
            self.floats = memoryview(self.buf)
            self.masks: dict[int, int] = {}  # plane -> the hexes it holds now (binary planes)
            pi = enc.plane_index
            for name in enc.rules.terrains:
                self._set(pi[f"terrain:{name}"], t.terrain.get(name, 0))
            self._set(pi["location"], game.tile_hexes)
            if len(_STATIC) > 16:
                _STATIC.clear()
            _STATIC[key] = (enc, game, self.buf.copy(), dict(self.masks))
        seats = enc.seat_planes(player)  # (the same for every game: made once per seat)
        self.seat, self.order, self.mask_planes = seats.seat, seats.order, seats.mask_planes
        self.tile_plane, self.tile_index = seats.tile_plane, seats.tile_index
        self.others, self.neutral_kinds, self.no_neutral = seats.others, seats.neutral_kinds, seats.no_neutral
        self.last_masks = [0] * len(self.mask_planes)
        self.mine: list[str] | None = None  # the observer's cards counted in mine_counts
        self.mine_counts: list[int] = []
        self.piles: tuple[list[str], list[str]] = ([], [])  # the discard pile and removed cards counted
        self.pile_counts = [0] * (2 * len(enc.deck))
        self.held: list[list] = [[] for _ in range(n)]  # per absolute seat: the tiles it held when last written
        self.cards = [float(c in game.setup.cards) for c in enc.rules.cards]
        self.written = [[0.0] * (b - a) for a, b, _, _ in enc.parts]  # the vector's parts as in the buffer
        self.loc_supply: dict[int, int] = {}  # the state's loc_supply and dealt the tile planes show
        self.dealt: dict[int, str] | None = None

    def _set(self, plane: int, mask: int) -> None:
        """Make a binary plane hold `mask`, writing only the hexes that changed."""
        old = self.masks.get(plane, 0)
        if old == mask:
            return
        self.masks[plane] = mask
        base, cell = plane * self.enc.grid.cells, self.cell
        diff = old ^ mask
        changed = diff.bit_count()
        if changed == 1:  # the common case (a piece arrived or left): one float, through a memoryview
            i = diff.bit_length() - 1  # (a numpy item assignment costs about twice as much)
            self.floats[base + cell[i]] = 1.0 if (mask >> i) & 1 else 0.0
        elif changed > 12:  # many hexes (a plane's first write): a few numpy calls beat a loop
            buf = self.buf
            buf[base + self.cell_array[self._hexes(diff & mask)]] = 1
            buf[base + self.cell_array[self._hexes(diff & old)]] = 0
        else:
            floats = self.floats
            for i in bit_list(diff):
                floats[base + cell[i]] = 1.0 if (mask >> i) & 1 else 0.0

    def _hexes(self, mask: int) -> np.ndarray:
        """The hex indexes of a bitset, as an array."""
        raw = np.frombuffer(mask.to_bytes(self.nbytes, "little"), np.uint8)
        return np.flatnonzero(np.unpackbits(raw, bitorder="little"))

    def _set_counts(self, plane: int, values: dict[int, int]) -> None:
        old = self.counts.get(plane, {})
        if old == values:
            return
        self.counts[plane] = values
        base, buf, cell = plane * self.enc.grid.cells, self.buf, self.cell
        for i in old.keys() | values.keys():
            if old.get(i) != values.get(i):
                buf[base + cell[i]] = values.get(i, 0)

    def update(self, state: State, stage: int = 0, kind: int = -1, source: int = -1) -> np.ndarray:
        """Bring the observation up to `state` (and the environment's partial choice of a move:
        `stage`, the chosen action kind and source hex) and return the buffer (not a copy)."""
        enc, game, p = self.enc, self.game, self.player
        # planes
        supply, dealt, seen = state.loc_supply, state.dealt, self.loc_supply
        if dealt == self.dealt and supply != seen:  # a tile taken: only its hex changes
            loc_of, tile_plane, cells, buf, cell = (
                game.tables.location_of,
                self.tile_plane,
                enc.grid.cells,
                self.buf,
                self.cell,
            )
            for at in {at for at, _ in supply.items() ^ seen.items()}:
                name = loc_of[at] or dealt.get(at)
                if name is not None:
                    left = supply.get(at, 0)
                    plane = tile_plane[name]
                    values = self.counts.setdefault(plane, {})
                    if left:
                        values[at] = left
                    else:
                        values.pop(at, None)
                    buf[plane * cells + cell[at]] = left
            self.loc_supply = dict(supply)
        elif dealt != self.dealt:  # the first update (or another game's tiles)
            self.loc_supply, self.dealt = dict(supply), dict(dealt)
            by_kind: dict[str, dict[int, int]] = {name: {} for name in enc.tile_names}
            loc_of = game.tables.location_of
            for at, left in supply.items():
                if left:
                    name = loc_of[at] or dealt.get(at)
                    if name is not None:
                        by_kind[name][at] = left
            tile_plane = self.tile_plane
            for name, values in by_kind.items():
                self._set_counts(tile_plane[name], values)
        # the binary planes' masks in the order of self.mask_planes, compared with the last ones (with
        # map and compress: the loops over seats and kinds run in C, not as bytecodes)
        own, neutral = state.own, state.neutral
        kinds = [*map(state.kind_own.__getitem__, self.others)]  # per other kind, its pieces by seat
        if kinds:  # a seat's settlements: its pieces that are of no other kind
            union = map(_union, zip(*kinds, strict=True))
            masks = [*map(xor, own, map(and_, own, union)), *chain.from_iterable(kinds)]
        else:
            masks = list(own)
        masks += state.taken
        masks += map(neutral.get, self.neutral_kinds, self.no_neutral)
        masks += [state.blocked, state.mand_built, 1 << source if source >= 0 else 0]
        last = self.last_masks
        if masks != last:
            put, planes = self._set, self.mask_planes
            for i in compress(count(), map(ne, masks, last)):
                put(planes[i], masks[i])
            self.last_masks = masks
        # the vector, in three parts (the cards; the supplies; the turn), each built whole (a few
        # hundred numbers) and written only if it changed, and each seat's tiles held (hundreds of
        # numbers with many tile kinds), counted and written only when its tiles changed
        deck, order, hot, cards = enc.deck, self.order, enc.hot, enc.hot_card
        (_, _, at0, pack0), (_, _, at1, pack1), (_, _, at2, pack2) = enc.parts
        written, buf = self.written, self.buf
        mine = [state.hand[p], *state.spare[p]] if state.hand[p] is not None else list(state.spare[p])
        if mine != self.mine:  # (the observer's cards change once a turn)
            self.mine, self.mine_counts = mine, [*map(mine.count, deck)]
        none = cards[None]
        vec = [
            *self.mine_counts,
            *(cards.get(state.wild, none) if p == state.turn_player else none),
            *cards.get(state.drawn, none),
        ]
        if state.discard != self.piles[0] or state.removed != self.piles[1]:  # (they change once a turn)
            self.piles = (list(state.discard), list(state.removed))
            self.pile_counts = [*map(state.discard.count, deck), *map(state.removed.count, deck)]
        vec += self.pile_counts
        vec.append(len(state.deck))
        vec += map(len, map(state.spare.__getitem__, order))
        vec.append(float(state.choosing))
        if vec != written[0]:
            pack0(buf, at0, *vec)
            written[0] = vec
        index, width, held = self.tile_index, len(self.tile_index), self.held
        for r, s in enumerate(order):
            tiles = state.tiles[s]
            if tiles != held[s]:  # (Tiles never change: a new status is another Tile)
                counts = [0] * (3 * width)  # unused, used, new
                for x in tiles:
                    i = index[x.kind]
                    counts[i + width * x.used] += 1
                    counts[i + 2 * width] += x.new
                held[s] = list(tiles)
                enc.pack_tiles(buf, enc.tiles_at + 12 * width * r, *counts)  # (relative seat r's fields)
        vec = [*map(state.supply.__getitem__, order)]
        for k in enc.rules.kinds:
            vec += map(state.kind_supply[k].__getitem__, order)
        vec += map(state.stock.__getitem__, self.neutral_kinds)
        vec += self.cards
        if vec != written[1]:
            pack1(buf, at1, *vec)
            written[1] = vec
        seat, seats, kinds = self.seat, hot[0], hot[1]
        vec = [
            *seats[seat[state.current]],
            *seats[seat[state.start_player]],
            state.turn,
            state.mand_left,
            state.built,
            *kinds[state.pending if state.pending_left else -1],
            state.pending_left,
            float(state.pending_up_to and state.pending_left > 0),
            float(state.ending),
            float(state.over),
            *hot[2][stage],
            *kinds[kind],
        ]
        vec += map(sum, map(dict.values, map(state.gold.__getitem__, order)))
        if vec != written[2]:
            pack2(buf, at2, *vec)
            written[2] = vec
        return self.buf


# (id(encoding), id(game)) -> (encoding, game, buffer, masks): the planes that never change (terrain,
# location hexes), written once per game and copied for its other seats
_STATIC: dict[tuple[int, int], tuple] = {}
_ARRAYS: ByOwner[np.ndarray] = ByOwner()  # Grid.cells_of's list -> it as an array


def _array_of(cell: list[int]) -> np.ndarray:
    """A board shape's hex -> cell list as an index array (made once per shape)."""
    hit = _ARRAYS.get(cell)
    return _ARRAYS.put(cell, (), np.asarray(cell, np.intp)) if hit is None else hit


_union = partial(reduce, or_)  # the union of a tuple of bitsets


def _one_hot(size: int, at: int) -> list[float]:
    """1.0 at position `at` (none if it is outside 0..size-1), 0.0 elsewhere."""
    out = [0.0] * size
    if 0 <= at < size:
        out[at] = 1.0
    return out
