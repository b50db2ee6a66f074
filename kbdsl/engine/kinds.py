"""Piece kinds owned by players beside the one `build` places: placed, moved and returned by tiles.

Each such kind has, per player, a bitset of the hexes it covers and a supply of its own. Its hexes
are also part of the owner's `own`, so they count as the owner's pieces everywhere (adjacency,
tiles, scoring: a piece covering seven hexes counts seven times), but placing one never uses a
settlement and never ends the game. A kind's settings (rule data) say whether it blocks the hexes
around it (an aura: nobody builds, places or moves a piece there while it stands), whether it covers
a hex and its six neighbours (a footprint), and what may move it.
"""

from __future__ import annotations

from kbdsl.bitset import bit_list
from kbdsl.engine.pieces import Pieces


class Kinds(Pieces):
    """Pieces of the other player-owned kinds, their supplies, and the hexes their auras block."""

    __slots__ = ()  # the attributes live in State's slots

    kind_own: dict[str, list[int]]  # kind -> per player: the hexes its pieces cover
    kind_all: list[int]  # per player: the hexes of all their pieces of kinds (kind_own's union, kept with it)
    kind_supply: dict[str, list[int]]  # kind -> per player: pieces left
    blocked: int  # hexes next to a piece with an aura: nothing may be built, placed or moved there

    def _init_kinds(self, players: int) -> None:
        kinds = self.game.rules.kinds
        self.blocked = 0
        self.kind_all = [0] * players
        if not kinds:  # (a rule set without piece kinds: no comprehension frames a game)
            self.kind_own, self.kind_supply = {}, {}
            return
        late = self.game.with_tiles  # kinds that come with tiles: none at the start
        self.kind_own, self.kind_supply = own, supply = {}, {}
        for k, n in kinds.items():  # (one loop: two comprehensions cost two frames, 1.58 against 1.25 us)
            own[k] = [0] * players
            supply[k] = [0 if k in late else n] * players

    def _copy_kinds(self, s: Kinds) -> None:
        s.kind_own = {k: list(v) for k, v in self.kind_own.items()}
        s.kind_all = list(self.kind_all)
        s.kind_supply = {k: list(v) for k, v in self.kind_supply.items()}
        s.blocked = self.blocked

    def _set_kinds(self, kind_own: dict[str, list[int]]) -> None:
        """Replace the pieces of every kind at once (set-ups and saves): they must be in `own` too."""
        self.kind_own = {k: list(kind_own.get(k, [0] * self.players)) for k in self.game.rules.kinds}
        self.kind_all = [sum(masks[p] for masks in self.kind_own.values()) for p in range(self.players)]  # (disjoint)
        self._block()

    def receive(self, p: int, n: int, kind: str) -> None:
        """p gets n pieces of `kind` with a tile, as many as the kind's supply leaves (on the board
        and in p's supply together, never more than the supply the rules give)."""
        total, on_board = self.game.rules.kinds[kind], self.kind_own[kind][p]
        have = self.kind_supply[kind][p] + (len(self.centres(kind, on_board)) if on_board else 0)
        self.kind_supply[kind][p] += max(0, min(n, total - have))

    # -- queries -----------------------------------------------------------------
    def kind_at(self, p: int, i: int) -> str | None:
        """The kind of p's piece on hex i, if it is not a settlement."""
        for k, masks in self.kind_own.items():
            if (masks[p] >> i) & 1:
                return k
        return None

    def unmovable(self, p: int, kind: str | None) -> int:
        """p's hexes a move action may not take a piece from: of kinds that never move, and (for a
        move that names no kind) of kinds only their own tile moves; a move naming a kind moves only it."""
        if kind is not None:
            return self.own[p] & ~self.kind_own[kind][p]
        kind_own, out = self.kind_own, 0
        for k in self.game.unmoved_kinds:
            out |= kind_own[k][p]
        return out

    def fixed(self) -> int:
        """Hexes of pieces that never move and are never removed (of any player)."""
        out = 0
        for k in self.game.fixed_kinds:
            for m in self.kind_own[k]:
                out |= m
        return out

    def aura_own(self, p: int) -> int:
        """p's hexes covered by pieces with an aura (lifting one of them unblocks hexes)."""
        out = 0
        for k in self.game.aura_kinds:
            out |= self.kind_own[k][p]
        return out

    def blocked_without(self, p: int, i: int) -> int:
        """The blocked hexes while p's piece on hex i is lifted (its own aura goes with it)."""
        if not self.blocked or self.kind_at(p, i) not in self.game.aura_kinds:
            return self.blocked
        return self._aura(~(1 << i))

    def cover(self, kind: str, i: int) -> int:
        """The hexes a piece of `kind` centred on hex i covers (0 where it does not fit on the board)."""
        if kind not in self.game.footprints:
            return 1 << i
        t = self.game.tables
        ring = t.nbr_mask[i]
        return ring | (1 << i) if ring.bit_count() == 6 else 0

    def centres(self, kind: str, mask: int) -> list[int]:
        """The hexes of `mask` on which a piece of `kind` is centred (its whole cover in `mask`)."""
        if kind not in self.game.footprints:
            return bit_list(mask)
        out = []
        for i in bit_list(mask):
            cover = self.cover(kind, i)
            if cover and cover & mask == cover:
                out.append(i)
        return out

    def kind_targets(self, kind: str, p: int, allowed: int, adjacent: bool, required: bool) -> int:
        """Hexes where a piece of `kind` may be placed: its whole cover within `allowed` (empty, not
        blocked hexes the action allows); next to p's pieces if the action says so (and can)."""
        if kind not in self.game.footprints:
            near = allowed & self.nb[p] if adjacent or required else 0
            return near if near or required else allowed
        # the centres whose cover lies in `allowed`: its hexes with six neighbours none of which is
        # outside it, i.e. not in the grown rest of the board (one grow: masked shifts, and the
        # neighbours in no direction too)
        t = self.game.tables
        out = allowed & t.six
        if out:
            out ^= out & t.grow(t.all ^ allowed)
        # next to p's pieces: an own hex next to the cover, so within two steps of the centre
        # (the cover, on allowed hexes, holds none)
        around = self.nb[p]
        near = out & (around | t.grow(around)) if out else 0
        if required or (adjacent and near):
            return near
        return out

    # -- changes -----------------------------------------------------------------
    def place_kind(self, p: int, kind: str, i: int) -> int:
        """One of p's pieces of `kind` from their supply onto hex i; returns the hexes it covers."""
        cover = self.cover(kind, i) if kind in self.game.footprints else 1 << i  # (cover's first case)
        self.own[p] |= cover
        self.occ |= cover
        t = self.game.tables
        around = t.nbr_mask[i] if cover == 1 << i else t.grow(cover)
        self.nb[p] |= around
        self.kind_own[kind][p] |= cover
        self.kind_all[p] |= cover
        self.kind_supply[kind][p] -= 1
        if kind in self.game.aura_kinds:
            self.blocked |= around  # (_aura's grow of every aura piece, with this one added)
        return cover

    def return_kind(self, p: int, i: int) -> None:
        """p's piece on hex i (not a settlement) goes back to p's supply of its kind."""
        kind = self.kind_at(p, i)
        assert kind is not None
        cover = 1 << i if kind not in self.game.footprints else self.kind_own[kind][p]  # (cover's, of one hex)
        self.own[p] &= ~cover
        self.occ &= ~cover
        self.nb[p] = self._without(p, i) if cover == 1 << i else self.game.tables.grow(self.own[p])
        self.kind_own[kind][p] &= ~cover
        self.kind_all[p] &= ~cover
        self.kind_supply[kind][p] += 1
        if kind in self.game.aura_kinds:
            self._block()

    def move_kind(self, p: int, frm: int, to: int) -> None:
        """After `move_piece`: p's piece moved from hex frm to hex to keeps its kind."""
        for k, masks in self.kind_own.items():
            if (masks[p] >> frm) & 1:
                masks[p] ^= (1 << frm) | (1 << to)
                self.kind_all[p] ^= (1 << frm) | (1 << to)
                if k in self.game.aura_kinds:
                    self._block()
                return

    def take_back_any(self, q: int, i: int) -> None:
        """q's piece on hex i goes back to q's supply (of its kind, if it is not a settlement)."""
        if self.kind_own and self.kind_at(q, i) is not None:
            self.return_kind(q, i)
        else:
            self.take_back(q, i)

    def pieces(self) -> list[tuple[str, str, int | None]]:
        """Every piece on the board as (hex, kind, owner), in board order (front ends draw these)."""
        out = super().pieces()
        if not self.kind_own:
            return out
        index = self.game.tables.index
        return [(h, self.kind_at(p, index[h]) or k if p is not None else k, p) for h, k, p in out]

    def _aura(self, keep: int = -1) -> int:
        out = 0
        for k in self.game.aura_kinds:
            for m in self.kind_own[k]:
                out |= m & keep
        return self.game.tables.grow(out) if out else 0

    def _block(self) -> None:
        self.blocked = self._aura()
