"""Board occupancy: which player's pieces stand on which hexes, and how many each has left.

Per player an int bitset of the hexes they hold (`own`) and of the hexes next to them (`nb`,
kept up to date so "adjacent if possible" is one AND), plus the union of all (`occ`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbdsl.bitset import bit_list, dilate

if TYPE_CHECKING:
    from kbdsl.engine.setup import BaseGame

#: The kind of piece every player builds (the only kind so far).
SETTLEMENT = "settlement"


class Pieces:
    """The pieces on the board and in the supplies."""

    game: BaseGame
    own: list[int]
    nb: list[int]
    occ: int
    supply: list[int]

    def _init_pieces(self, players: int) -> None:
        self.own = [0] * players
        self.nb = [0] * players
        self.occ = 0
        self.supply = [self.game.rules.settlements] * players

    def _copy_pieces(self, s: Pieces) -> None:
        s.own, s.nb, s.occ, s.supply = list(self.own), list(self.nb), self.occ, list(self.supply)

    def _set_own(self, own: list[int]) -> None:
        """Replace every player's hexes at once (set-ups and saves), recomputing what derives from them."""
        nbr_mask = self.game.tables.nbr_mask
        self.own = own
        self.occ = 0
        for m in own:
            self.occ |= m
        self.nb = [dilate(m, nbr_mask) for m in own]

    @property
    def players(self) -> int:
        return len(self.own)

    def settlements(self, player: int) -> list[str]:
        """The hexes of a player's settlements, in board order."""
        return self.game.tables.names(self.own[player])

    def pieces(self) -> list[tuple[str, str, int | None]]:
        """Every piece on the board as (hex, kind, owner), in board order (front ends draw these)."""
        ids, out = self.game.tables.ids, []
        for p, m in enumerate(self.own):
            out.extend((ids[i], SETTLEMENT, p) for i in bit_list(m))
        out.sort(key=lambda x: self.game.tables.index[x[0]])
        return out

    def place_piece(self, p: int, i: int) -> None:
        """A settlement from p's supply onto hex i."""
        bit = 1 << i
        self.own[p] |= bit
        self.occ |= bit
        self.nb[p] |= self.game.tables.nbr_mask[i]
        self.supply[p] -= 1

    def move_piece(self, p: int, frm: int, to: int) -> None:
        """p's piece on hex frm onto hex to."""
        swap = (1 << frm) | (1 << to)
        self.own[p] ^= swap
        self.occ ^= swap
        self.nb[p] = dilate(self.own[p], self.game.tables.nbr_mask)
