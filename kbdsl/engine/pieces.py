"""Board occupancy: which pieces stand on which hexes, and how many are left in the supplies.

Per player an int bitset of the hexes they hold (`own`) and of the hexes next to them (`nb`,
kept up to date so "adjacent if possible" is one AND). Pieces owned by nobody (the rule set's
neutral kinds) have one bitset and one shared stock per kind. `occ` is the union
of everything: a hex holds at most one piece.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.bitset import bit_list

if TYPE_CHECKING:
    from kbdsl.engine.setup import BaseGame


class Pieces:
    """The pieces on the board and in the supplies."""

    __slots__ = ()  # the attributes live in State's slots

    game: BaseGame
    own: list[int]  # per player: hexes of their pieces (the kind `build` places)
    nb: list[int]  # per player: hexes next to `own`
    occ: int  # every occupied hex
    supply: list[int]  # per player: pieces left to build
    neutral: dict[str, int]  # kind owned by nobody -> its hexes
    stock: dict[str, int]  # kind owned by nobody -> pieces left in the shared supply
    neutral_occ: int  # the union of `neutral`

    def _init_pieces(self, players: int) -> None:
        rules = self.game.rules
        self.own = [0] * players
        self.nb = [0] * players
        self.occ = 0
        self.supply = [rules.settlements] * players
        self.neutral = dict.fromkeys(rules.neutral, 0)
        self.stock = dict(rules.neutral)
        self.neutral_occ = 0

    def _copy_pieces(self, s: Pieces) -> None:
        s.own, s.nb, s.occ, s.supply = list(self.own), list(self.nb), self.occ, list(self.supply)
        s.neutral, s.stock, s.neutral_occ = dict(self.neutral), dict(self.stock), self.neutral_occ

    def _set_pieces(self, own: list[int], neutral: dict[str, int] | None = None) -> None:
        """Replace every piece at once (set-ups and saves), recomputing what derives from them."""
        grow = self.game.tables.grow
        self.own = own
        self.neutral = dict(neutral) if neutral is not None else {k: 0 for k in self.game.rules.neutral}
        self.neutral_occ = 0
        for m in self.neutral.values():
            self.neutral_occ |= m
        self.occ = self.neutral_occ
        for m in own:
            self.occ |= m
        self.nb = [grow(m) for m in own]

    @property
    def players(self) -> int:
        return len(self.own)

    def settlements(self, player: int) -> list[str]:
        """The hexes of a player's pieces, in board order."""
        return self.game.tables.names(self.own[player])

    def owner(self, i: int) -> int | None:
        """The player whose piece stands on hex i (None: nobody's, or empty)."""
        bit = 1 << i
        return next((p for p, m in enumerate(self.own) if m & bit), None)

    def pieces(self) -> list[tuple[str, str, int | None]]:
        """Every piece on the board as (hex, kind, owner): each player's in board order, then the
        pieces owned by nobody (front ends draw these)."""
        ids, kind = self.game.tables.ids, self.game.rules.piece_kind
        out = [(ids[i], kind, p) for p, m in enumerate(self.own) for i in bit_list(m)]
        return out + [(ids[i], k, None) for k, m in self.neutral.items() for i in bit_list(m)]

    def place_piece(self, p: int, i: int) -> None:
        """One of p's pieces from their supply onto hex i."""
        bit = 1 << i
        self.own[p] |= bit
        self.occ |= bit
        self.nb[p] |= self.game.tables.nbr_mask[i]
        self.supply[p] -= 1

    def place_neutral(self, kind: str, i: int) -> None:
        """A piece owned by nobody from the shared stock onto hex i."""
        bit = 1 << i
        self.neutral[kind] |= bit
        self.neutral_occ |= bit
        self.occ |= bit
        self.stock[kind] -= 1

    def move_piece(self, p: int, frm: int, to: int) -> None:
        """p's piece on hex frm onto hex to."""
        swap = (1 << frm) | (1 << to)
        self.own[p] ^= swap
        self.occ ^= swap
        self.nb[p] = self._without(p, frm) | self.game.tables.nbr_mask[to]

    def take_back(self, q: int, i: int) -> None:
        """q's piece on hex i goes back to q's supply."""
        bit = 1 << i
        self.own[q] &= ~bit
        self.occ &= ~bit
        self.nb[q] = self._without(q, i)
        self.supply[q] += 1

    def _without(self, p: int, i: int) -> int:
        """p's neighbourhood `nb` once p's piece on hex i is gone (own[p] already without it): only
        the hexes next to i can drop out, those with no other piece of p next to them (the
        fewer, in a kingdom of neighbours: they are the ones cleared)."""
        t = self.game.tables
        nbr_mask, own = t.nbr_mask, self.own[p]
        nb = self.nb[p]
        for j in t.nbr[i]:
            if not nbr_mask[j] & own:
                nb ^= 1 << j  # (in nb: next to the piece gone)
        return nb
