"""The hexes an action may choose: its compiled filters over the pieces, and "adjacent if possible"."""

from __future__ import annotations

from kbdsl.bitset import bit_list
from kbdsl.engine.pieces import Pieces
from kbdsl.engine.zones import Cards
from kbdsl.expr import Ctx
from kbdsl.ruleset import CompiledAction


class Targets(Pieces, Cards):
    """Evaluating action filters for a player (one reused context object: this is the hot path)."""

    _c: Ctx | None = None
    waived: bool  # the next settlement built ignores adjacent-if-possible

    def ctx(self, p: int, own: list[int] | None = None, occ: int | None = None, origin: int = -1) -> Ctx:
        """The evaluation context for player p, optionally with other pieces (a lifted settlement)."""
        c = self._c
        if c is None:
            c = self._c = Ctx(self.game.tables, self.own, self.occ, self.game.options)
        c.own = own if own is not None else self.own
        c.occ = self.occ if occ is None else occ
        c.owned = c.occ & ~self.neutral_occ if self.neutral_occ else c.occ
        c.p, c.card, c.origin, c.region = p, self.hand[p], origin, None  # `built`: set by triggers only
        if c._areas or c.memo:
            c.forget()
        return c

    def has_targets(self, action: CompiledAction, p: int) -> bool:
        """Whether `action` lets p build anywhere now (adjacency only narrows a choice, never empties it)."""
        return bool(action.target(self.ctx(p)) & self.game.tables.all & ~self.occ)

    def build_targets(self, action: CompiledAction, p: int) -> int:
        """Empty hexes `action` lets p build (or place) on, narrowed to p's neighbourhood if it says
        so and can (unless the next build is waived from that rule)."""
        cand = action.target(self.ctx(p)) & self.game.tables.all & ~self.occ
        if action.adjacent and not (self.waived and action.kind == "build"):
            near = cand & self.nb[p]
            if near:
                return near
        return cand

    def remove_targets(self, action: CompiledAction, p: int, hit: int) -> int:
        """Hexes of other players' pieces `action` may remove (with per-opponent: of players not hit yet)."""
        cand = action.target(self.ctx(p)) & ~self.own[p]
        out = 0
        for q, m in enumerate(self.own):
            if q != p and not (hit >> q) & 1:
                out |= cand & m
        return out

    def move_targets(self, action: CompiledAction, p: int) -> list[tuple[int, int]]:
        """(source, target-mask) pairs of a move action: each source lifted first (RULINGS 12)."""
        t = self.game.tables
        own = self.own[p]
        sources = own & action.source(self.ctx(p)) if action.source else own
        out = []
        nbr_mask = t.nbr_mask
        for s in bit_list(sources):
            bit = 1 << s
            lifted = own ^ bit
            occ = self.occ ^ bit
            owns = list(self.own)
            owns[p] = lifted
            cand = action.target(self.ctx(p, owns, occ, s)) & t.all & ~occ
            if not self.game.may_stay:
                cand &= ~bit
            if action.adjacent and cand:
                nb = self.nb[p]
                for j in t.nbr[s]:
                    if not nbr_mask[j] & lifted:
                        nb &= ~(1 << j)
                near = cand & nb
                if near:
                    cand = near
            if cand:
                out.append((s, cand))
        return out
