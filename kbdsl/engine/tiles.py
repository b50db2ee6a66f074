"""Location tiles: how a player gains them (RULINGS 10), uses them (9) and loses them (11).

What differs between tiles is their lifecycle (rule data, resolved into sets of tile kinds by
`BaseGame`): whether a tile is kept while its hex is touched, when a loss is checked, where a
lost tile goes, how often it is used and from when.
"""

from __future__ import annotations

from operator import attrgetter

from kbdsl.bitset import bit_list
from kbdsl.engine.pieces import Pieces
from kbdsl.moves import DISCARDS

# RULINGS 11: losing one of two same-kind tiles, a move that names no `discard` gives up the copy
# worth least to the player now: a used one (spent this turn, or for good), then a new one (usable
# from the next turn), and an unused one last.
GIVE_UP_FIRST = {"used": 0, "new": 1, "unused": 2}


def default_give_up(statuses: list[str]) -> str:
    """The status a move without `discard` gives up among the copies of one kind (RULINGS 11)."""
    return min(statuses, key=GIVE_UP_FIRST.__getitem__)


class Tile:
    """A location tile held by a player: its kind, the hex it came from, its turn status.

    Its status never changes, so copies of a game share Tiles. Each status of one tile is a Tile of
    its own, made with it and then reused (`fresh`, `spent`): turns allocate none."""

    __slots__ = ("kind", "at", "used", "new", "status", "usable", "fresh", "spent")

    def __init__(self, kind: str, at: int, used: bool = False, new: bool = False, fresh: Tile | None = None):
        self.kind, self.at, self.used, self.new = kind, at, used, new
        self.status = "used" if used else "new" if new else "unused"  # (a field: discard variants read it often)
        self.usable = None if used or new else kind  # the kind, if usable this turn (read in C: map, attrgetter)
        self.fresh: Tile  # this tile, unused
        self.spent: Tile  # this tile, used this turn
        if not (used or new):
            self.fresh = self
            self.spent = Tile(kind, at, True, False, self)
        else:
            self.fresh = fresh or Tile(kind, at)
            self.spent = self if used and not new else self.fresh.spent

    @staticmethod
    def taken(kind: str, at: int, new: bool) -> Tile:
        """The tile of `kind` a player takes from hex `at` (unused, or `new`): one Tile per kind,
        hex and status, shared by every player and game (a player takes from a hex once, so nobody
        holds two of them, and a turn's gains allocate nothing)."""
        key = (kind, at, new)
        tile = _TAKEN.get(key)
        if tile is None:
            tile = _TAKEN[key] = Tile(kind, at, False, new)
        return tile

    def like(self, other: Tile) -> Tile:
        """This tile with the status of `other`."""
        if other.fresh is other:
            return self.fresh
        if other.spent is other:
            return self.spent
        return Tile(self.kind, self.at, other.used, other.new, self.fresh)


_TAKEN: dict[tuple[str, int, bool], Tile] = {}  # Tile.taken's tiles (a few per tile hex of the boards played)
#: A held tile's kind, the kind it is usable as now (None: spent), and the tile as a new turn finds
#: it: read in C by map() over a hand of tiles (here, in Given and in the compiled playout).
kind_of, usable_kind, fresh_of = attrgetter("kind"), attrgetter("usable"), attrgetter("fresh")


class Holdings(Pieces):
    """The tiles players hold, the hexes they took them from, and the tiles left on the hexes.

    A location hex holds `supply` tiles of its own kind; a pool hex holds the one tile dealt
    onto it at setup (`dealt`), face up."""

    __slots__ = ()  # the attributes live in State's slots

    tiles: list[list[Tile]]
    taken: list[int]
    loc_supply: dict[int, int]  # tiles left on each location or pool hex
    dealt: dict[int, str]  # pool hex -> the tile lying on it

    def _init_tiles(self, players: int) -> None:
        g = self.game
        self.tiles = [[] for _ in range(players)]
        self.taken = [0] * players
        self.loc_supply = dict(g.tile_supply)
        self.dealt = g.deal() if g.pool_tiles else {}  # (a board without pools: no call, no stream)
        for i in self.dealt:
            self.loc_supply[i] = 1

    def _copy_tiles(self, s: Holdings) -> None:
        s.tiles = [list(ts) for ts in self.tiles]  # the Tiles themselves are shared: never changed
        s.taken, s.loc_supply, s.dealt = list(self.taken), dict(self.loc_supply), dict(self.dealt)

    def tile_on(self, i: int) -> str | None:
        """The kind of tile hex i gives: its location's, or the one dealt onto it."""
        return self.game.tables.location_of[i] or self.dealt.get(i)

    def usable_tiles(self, p: int) -> list[str]:
        """Kinds of tile p may use now: held, not used this turn, not taken this turn (RULINGS 9)."""
        seen = []  # each kind once, in order (a loop: over so few, 2-3x cheaper than list(fromkeys(filter(map))))
        for x in self.tiles[p]:
            kind = x.usable
            if kind and kind not in seen:
                seen.append(kind)
        turns = self.game.turn_grants  # and the actions the board grants
        if turns and not self.phase:  # granted(p), inline (none used instead of the mandatory action):
            seen += filter(self.grant_left[p].get, turns)  # those with uses left
            return seen
        g = self.game
        if g.grants and (self.phase or g.instead):  # (in a phase of grants, only they)
            return seen + self.granted(p) if not self.phase else self.granted(p)
        return seen

    def mark_used(self, p: int, name: str) -> None:
        if name in self.game.grants:  # a use of a granted action (kbdsl.engine.grants)
            self.grant_left[p][name] -= 1
            return
        held = self.tiles[p]
        for k, tile in enumerate(held):
            if tile.kind == name and tile.fresh is tile:
                if name in self.game.single_use:
                    del held[k]
                else:
                    held[k] = tile.spent
                return

    def refresh_tiles(self, p: int) -> None:
        """The end of p's turn: tiles kept until then expire, the others are usable again next turn."""
        g = self.game
        if g.lose_later:
            self.lose(p, None, g.lose_later)
        if g.expiring and not g.expiring.isdisjoint(map(kind_of, self.tiles[p])):  # (most turns: none held)
            for tile in [x for x in self.tiles[p] if x.kind in g.expiring and not x.new]:
                self._discard(p, tile)
        self.tiles[p] = list(map(fresh_of, self.tiles[p]))

    def gains(self, p: int, i: int) -> list[int]:
        """RULINGS 10: the tile hexes a piece of p arriving on hex i takes a tile from (each adjacent
        one with a tile left that p never took from)."""
        near = self.game.tile_near[i]
        near ^= near & self.taken[p]  # near & ~taken, without a negative int
        if not near:  # most hexes touch no tile hex, or only ones p took from
            return []
        supply = self.loc_supply
        return [loc for loc in bit_list(near) if supply.get(loc, 0) > 0]

    def gain_zone(self, p: int) -> int:
        """The hexes where a piece of p arriving would take a tile (where `gains` is not empty)."""
        nbr_mask, taken, out = self.game.tables.nbr_mask, self.taken[p], 0
        for loc, left in self.loc_supply.items():  # every tile hex with a tile left is a key
            if left > 0 and not (taken >> loc) & 1:
                out |= nbr_mask[loc]
        return out

    def tile_zone(self, kind: str) -> int:
        """Hexes next to a hex that may hold a tile of `kind` (its locations, and the pool hexes),
        kept per board."""
        g = self.game
        t = g.tables
        key = ("tile-zone", kind, g.pool_hexes)
        try:  # (cheaper than t.cache.get, a call)
            return t.cache[key]
        except KeyError:
            pass
        zone = t.cache[key] = t.grow(t.locations.get(kind, 0) | g.pool_hexes)
        return zone

    def gain(self, p: int, i: int) -> None:
        """p's piece arrived on hex i: p takes a tile from each hex of `gains(p, i)`, lowest first,
        then any tile given from a stock (kbdsl.engine.given) that this makes due."""
        g = self.game
        near = g.tile_near[i]
        near ^= near & self.taken[p]  # gains(p, i), in line (one call at every arrival by a tile hex)
        if not near:
            return
        supply, held, given, by = self.loc_supply, self.tiles[p], g.given, g.given_by
        due = False  # a taking of a kind given_by names (any, if None): given tiles looked for after
        while near:
            loc = (near ^ (near - 1)).bit_length() - 1  # the lowest first
            near &= near - 1
            left = supply.get(loc, 0)
            if left <= 0:
                continue
            supply[loc] = left - 1
            if left == 1 and g.reactions and not self.phase:  # the last tile: reactions are due
                self.reacting = True
            self.taken[p] |= 1 << loc
            kind = g.tables.location_of[loc] or self.dealt.pop(loc)
            held.append(Tile.taken(kind, loc, kind in g.wait_a_turn))
            if kind in g.gives:  # the pieces that come with the tile
                self.receive(p, *g.gives[kind])
            if given and not due:
                due = by is None or kind in by
        if due:
            self.grant(p, held[-1].at)

    def lost(self, p: int, kinds: frozenset[str], own: int | None = None) -> list[Tile]:
        """Tiles of p of these kinds whose hex touches none of p's settlements (now, or with `own`)."""
        nbr_mask = self.game.tables.nbr_mask
        own = self.own[p] if own is None else own
        out = []
        for x in self.tiles[p]:  # a loop, not a comprehension: most lists are short, a call costs more
            if x.kind in kinds and not nbr_mask[x.at] & own:
                out.append(x)
        return out

    def held_twice(self, p: int, tiles: list[Tile]) -> bool:
        """Whether p holds two tiles of the kind of one of `tiles` (a lost one may leave a choice)."""
        held = self.tiles[p]
        if len(held) < 2:
            return False
        for x in tiles:  # loops, not comprehensions: the lists are short, a call costs more
            seen = False
            for y in held:
                if y.kind == x.kind:
                    if seen:
                        return True
                    seen = True
        return False

    def lose(self, p: int, discard: str | None, kinds: frozenset[str]) -> None:
        """RULINGS 11: a tile (of these kinds) whose hex no longer touches p's settlements is lost."""
        lost = self.lost(p, kinds)
        if not lost:
            return
        held = self.tiles[p]
        now: dict[int, Tile] = {}  # lost tiles given a twin's status meanwhile: id of the old -> the new
        for tile in lost:
            tile = now.get(id(tile), tile)
            give_up = discard
            if give_up is None:
                give_up = default_give_up([x.status for x in held if x.kind == tile.kind])
            twin = next(
                (
                    k
                    for k, x in enumerate(held)
                    if x.kind == tile.kind and x is not tile and x.status == give_up and x.status != tile.status
                ),
                None,
            )
            if twin is not None:  # give up the twin's status instead: the kept tile takes the lost one's
                old = held[twin]
                held[twin] = now[id(old)] = old.like(tile)
            self._discard(p, tile)

    def _discard(self, p: int, tile: Tile) -> None:
        """p gives up a tile: it leaves the game, or goes back onto its hex if its lifecycle says so."""
        self.tiles[p].remove(tile)
        if tile.kind in self.game.returning:
            self.loc_supply[tile.at] += 1
            if not self.game.tables.location_of[tile.at]:
                self.dealt[tile.at] = tile.kind

    def sole_touchers(self, p: int) -> int:
        """Pieces of p that alone touch the hex of one of p's tiles lost at once (moving one may lose it)."""
        now = self.game.lose_now
        if not now:
            return 0
        nbr_mask, own, out = self.game.tables.nbr_mask, self.own[p], 0
        for x in self.tiles[p]:
            if x.kind in now:
                touching = nbr_mask[x.at] & own
                if not touching & (touching - 1):
                    out |= touching
        return out

    def copy_statuses(self, p: int, to: int, tile: Tile, using: str | None) -> list[str]:
        """The statuses among which a move of p's onto `to` that loses `tile` gives one up (RULINGS
        11), as they will be when the loss is checked: those of the tiles of its kind p holds, the
        lost one included, with the copy the move uses (of kind `using`, as `mark_used` picks it)
        spent, and those this very move takes (RULINGS 10)."""
        g = self.game
        out = []
        for x in self.tiles[p]:
            if x.kind != tile.kind:
                continue
            if x.kind == using and x.fresh is x:
                using = None  # the first fresh copy is the one used
                if x.kind not in g.single_use:
                    out.append("used")
                continue
            out.append(x.status)
        for loc in self.gains(p, to):
            if self.tile_on(loc) == tile.kind:
                out.append("new" if tile.kind in g.wait_a_turn else "unused")
        return out

    def discard_choices(self, p: int, to: int, lost: list[Tile], using: str | None) -> list[int]:
        """The extra discard variants of a move of p's onto `to` (using a tile of kind `using`) that
        loses the tiles `lost`, while p holds, or this very move takes, a tile of a lost one's kind
        with another status: the indexes in DISCARDS of the statuses one may give up instead of the
        default's."""
        out = []
        for tile in lost:
            statuses = self.copy_statuses(p, to, tile, using)
            default = default_give_up(statuses)
            for status in statuses:
                d = DISCARDS.index(status)
                if status != default and d not in out:
                    out.append(d)
        return out
