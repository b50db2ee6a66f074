"""The hexes an action may choose: its compiled filters over the pieces, and "adjacent if possible"."""

from __future__ import annotations

from kbdsl.bitset import bit_list
from kbdsl.engine.groups import OriginTable, shape_origins
from kbdsl.engine.hand import Hand
from kbdsl.engine.kinds import Kinds
from kbdsl.expr import Ctx, _touching
from kbdsl.ruleset import CompiledAction


#: Action `reads` (kbdsl.expr.Compiler.reads) whose target is a table per board: no context needed.
CARD = frozenset({"card"})
CARD_ORIGIN = frozenset({"card", "origin"})


class Targets(Kinds, Hand):
    """Evaluating action filters for a player (one reused context object: this is the hot path)."""

    __slots__ = ()  # the attributes live in State's slots

    _c: Ctx | None = None
    waived: bool  # the next settlement built ignores adjacent-if-possible
    drawn: str | None = None  # the card a tile's action drew this turn (`terrain(drawn)`)

    def ctx(self, p: int, own: list[int] | None = None, occ: int | None = None, origin: int = -1) -> Ctx:
        """The evaluation context for player p, optionally with other pieces (a lifted settlement)."""
        c = self._c
        if c is None:
            c = self._c = Ctx(self.game.tables, self.own, self.occ, self.game.options)
            c.drawn = self.drawn
            c.tiles, c.picks = self.tiles, self.game.picks  # (held(), terrain(removed))
        if own is None:
            c.own, c.nb = self.own, self.nb
        else:
            c.own, c.nb = own, None  # (a lifted piece: next-to(own) is grown again)
        if occ is None:
            occ = self.occ
        c.occ = occ
        neutral = self.neutral_occ
        c.owned = occ ^ (occ & neutral) if neutral else occ  # without a negative int
        c.p = p  # (one assignment a field: cheaper than a tuple's)
        c.card = self.hand[p]
        c.origin = origin
        c.region = None  # `built`: set by triggers only
        c.lifted = None  # (set by _lifted_targets alone)
        if c._areas or c.memo:
            c.forget()
        return c

    def set_drawn(self, card: str | None) -> None:
        """The card a tile's action drew (`terrain(drawn)`), kept in the context too."""
        self.drawn = card
        if self._c is not None:
            self._c.drawn = card

    def build_targets(self, action: CompiledAction, p: int) -> int:
        """Empty hexes `action` lets p build (or place) on, narrowed to p's neighbourhood if it says
        so and can (unless the next build is waived from that rule). Hexes an aura blocks are never
        targets; with several cards in hand, each card's targets count (kbdsl.engine.hand)."""
        if self.choosing and id(action) in self.game.card_actions:
            if action.reads <= CARD:
                return self._cards_board_targets(action, p)
            return self.over_cards(p, lambda: self.build_targets(action, p), int.__or__, 0)
        blocked = self.blocked
        if action.reads <= CARD:
            cand = self.board_target(action, self.hand[p])
        elif action.near_own is not None:  # A & next-to(own): A per board and card, & p's neighbourhood
            cand = self.near_own_part(action, p) & self.nb[p]
        else:
            c = self.ctx(p)
            if blocked:
                c.occ |= blocked  # to a target, a blocked hex is as good as taken (`empty` leaves it out)
            cand = action.target(c)  # on the board: every compiled hex set is (kbdsl.expr.Compiled)
        cand ^= cand & (self.occ | blocked if blocked else self.occ)  # cand & ~taken, without a negative int
        if action.adjacent and not (self.waived and action.kind == "build"):
            near = cand & self.nb[p]
            if near:
                return near
        return cand

    def _cards_board_targets(self, action: CompiledAction, p: int, tables: dict | None = None) -> int:
        """build_targets of an action whose target is a board table (it reads at most the card)
        while p chooses among cards: each card's targets with its own "adjacent if possible",
        merged (what over_cards finds, without putting each card in p's hand); `tables`, if
        given, caches the board's targets by card (as table_build_targets')."""
        taken = self.occ | self.blocked
        adjacent = action.adjacent and not (self.waived and action.kind == "build")
        nb, out = self.nb[p], 0
        played, spare = self.hand[p], self.spare[p]
        # card_choices where the hand may not be itself (faces, or identical cards), else the hand
        cards = self.card_choices(p) if self.game.faces or (spare and spare[0] == played) else [played, *spare]
        for card in cards:
            if tables is None:
                cand = self.board_target(action, card)
            else:
                try:  # (cheaper than tables.get, a call)
                    cand = tables[card]
                except KeyError:
                    cand = tables[card] = self.board_target(action, card)
            cand ^= cand & taken  # cand & ~taken, without a negative int
            if adjacent:
                near = cand & nb
                if near:
                    cand = near
            out |= cand
        return out

    def table_build_targets(self, action: CompiledAction, tables: dict, p: int) -> int:
        """build_targets of an action whose target is a board table (it reads at most the card), for
        p holding one card: the hot path's form, `tables` caching the board's targets by card."""
        try:  # (cheaper than tables.get, a call)
            targets = tables[self.hand[p]]
        except KeyError:
            targets = self.card_table(action, tables, self.hand[p])
        blocked = self.blocked
        targets ^= targets & (self.occ | blocked if blocked else self.occ)  # targets & ~taken, without a negative int
        if action.adjacent and not self.waived:  # (a build: the mandatory one or a tile's, kbdsl.engine.setup)
            near = targets & self.nb[p]
            if near:
                return near
        return targets

    def near_own_part(self, action: CompiledAction, p: int) -> int:
        """The A of an action's target `A & next-to(own)` (CompiledAction.near_own) for p's card,
        computed once per board and card."""
        card = self.hand[p] if "card" in action.reads else None
        cache, key = self.game.tables.cache, ("near-own", id(action), card)
        try:  # (cheaper than cache.get, a call)
            return cache[key]
        except KeyError:
            c = self.ctx(p)
            c.card = card
            value = cache[key] = action.near_own(c) & self.game.tables.all
            return value

    def board_target(self, action: CompiledAction, card: str | None, origin: int = -1) -> int:
        """The target of an action that reads at most the card and the origin (its `reads`), on
        this board: computed once per board, card and origin (see board_table)."""
        table = self.board_table(action, card)
        value = table[origin]
        if value is None:
            c = self._c
            if c is None:
                c = self.ctx(self.current)
            elif c._areas or c.memo:  # (the target reads no pieces nor player: what ctx() sets for them is not read)
                c.forget()
            c.card, c.origin, c.region = card, origin, None
            value = table[origin] = action.target(c) & self.game.tables.all
        return value

    def card_table(self, action: CompiledAction, tables: dict, card: str | None) -> int:
        """board_target of an action whose target reads at most the card, for `card`, kept in
        `tables` (by card; a miss): where the target reads no card, its one value for every card of
        the deck at once, and the mandatory action's (`mandatory_tables`: a game soon plays each
        card) for every card of the deck in one context (a board_target call a card had cost ~100
        bytecodes); another's for this card alone."""
        g = self.game
        if "card" not in action.reads:
            value = self.board_target(action, None)
            tables.update(dict.fromkeys(g.deck_cards, value))
            tables[card] = value
            return value
        if tables is not g.mandatory_tables:
            value = tables[card] = self.board_target(action, card)
            return value
        c = self.ctx(self.current)  # (`card` is a miss)
        c.origin, c.region = -1, None
        every, target = g.tables.all, action.target
        for other in (card, *g.rules.deck):  # (the rule set's cards: a card some pick took out is never asked)
            if other not in tables:
                if c._areas or c.memo:
                    c.forget()
                c.card = other
                tables[other] = target(c) & every
        return tables[card]

    def fill_origins(self, action: CompiledAction, card: str | None, table: list[int | None], origins: int) -> None:
        """board_target of each of these origins not in `table` (its board_table) yet, in one
        context: a board's table fills origin by origin as pieces come to stand on them."""
        c, every = None, self.game.tables.all
        while origins:
            rest = origins & (origins - 1)  # without the lowest bit (see kbdsl.bitset.extend_bits)
            s = (origins ^ rest).bit_length() - 1
            origins = rest
            if table[s] is None:
                if c is None:
                    c = self.ctx(self.current)
                    c.card = card
                elif c._areas or c.memo:
                    c.forget()
                c.origin = s
                table[s] = action.target(c) & every

    def board_table(self, action: CompiledAction, card: str | None) -> list[int | None]:
        """The board's cache of such an action's targets for one card, by origin (the last entry:
        no origin, the only one of a target that reads none: a new board makes a few tens of
        these); None where not computed yet."""
        t = self.game.tables
        key = (id(action), card if "card" in action.reads else None)
        table = t.cache.get(key)
        if table is None:
            table = t.cache[key] = [None] * (t.n + 1 if "origin" in action.reads else 1)
        return table

    def remove_targets(self, action: CompiledAction, p: int, hit: int) -> int:
        """Hexes of other players' pieces `action` may remove (with per-opponent: of players not hit yet)."""
        cand = action.target(self.ctx(p))
        cand ^= cand & self.own[p]  # cand & ~own, without a negative int
        if self.kind_own:
            cand ^= cand & self.fixed()
        out = 0
        for q, m in enumerate(self.own):
            if q != p and not (hit >> q) & 1:
                out |= cand & m
        return out

    def move_targets(self, action: CompiledAction, p: int) -> list[tuple[int, int]]:
        """(source, target-mask) pairs of a move action: each source lifted first (RULINGS 12)."""
        return [(s, cand) for sources, cand in self.move_blocks(action, p) for s in bit_list(sources)]

    def move_blocks(self, action: CompiledAction, p: int, sources: int | None = None) -> list[tuple[int, int]]:
        """move_targets as (sources, target-mask) blocks in source order: the sources of a block
        have the same targets (Turn._steps makes a block one run, kbdsl.engine.groups.SameMoves);
        `sources`: of these of the action's sources only (the compiled playout's pieces with an aura)."""
        g = self.game
        if self.choosing and id(action) in g.card_actions:
            if action.reads <= CARD and not action.source_reads:  # only the target reads the card: each
                if sources is None:  # card's blocks merged, over_cards' without a hand put in place
                    sources = self.move_sources(action, p)
                if not sources:
                    return []
                sames = [self.board_target(action, card) for card in self.card_choices(p)]
                return self._same_blocks(action, p, sources, sames)
            return self.over_cards(p, lambda: self.move_blocks(action, p, sources), _merge_blocks, [])
        if sources is None:
            sources = self.move_sources(action, p)
        if not sources:
            return []
        card, reads = self.hand[p], action.reads
        if not reads <= CARD_ORIGIN:  # the target is no table per board: a context to fill
            return self._lifted_targets(action, p, sources)
        if "origin" not in reads:
            return self._same_blocks(action, p, sources, [self.board_target(action, card)])
        table = self.board_table(action, card)
        self.fill_origins(action, card, table, sources)
        blocked = self.blocked
        aura = self.aura_own(p) if blocked else 0  # p's pieces with an aura: lifting one unblocks hexes
        nbr_mask, nb, own = g.tables.nbr_mask, self.nb[p], self.own[p]
        fast = not g.may_stay and not sources & aura
        free, adjacent = ~(self.occ | blocked), action.adjacent
        out = []
        for s in bit_list(sources):
            if fast:
                cand = table[s] & free  # type: ignore[operator]
            else:
                bit = 1 << s
                occ = self.occ ^ bit
                if blocked:  # (a source with an aura: not fast)
                    occ |= self.blocked_without(p, s) if aura & bit else blocked
                cand = table[s] & ~occ  # type: ignore[operator]
                if not g.may_stay:
                    cand &= ~bit
            if adjacent and cand:
                cand = _still_adjacent(cand, nb, nbr_mask, own, s)
            if cand:
                out.append((1 << s, cand))
        return out

    def _same_blocks(self, action: CompiledAction, p: int, sources: int, sames: list[int]) -> list[tuple[int, int]]:
        """move_blocks of a target that is one hex set on the board from every source, a set per card
        p may play (`sames`: more than one while p chooses, each card's blocks merged): the same free
        hexes but where lifting a piece with an aura unblocks hexes."""
        g = self.game
        blocked, own, nb = self.blocked, self.own[p], self.nb[p]
        aura = self.aura_own(p) if blocked else 0  # p's pieces with an aura: lifting one unblocks hexes
        adjacent = action.adjacent
        if not g.may_stay and not sources & aura:  # every target empty and not blocked now (the
            free = ~(self.occ | blocked)  # piece must leave its hex, which is occupied: never one)
            return self._same_move_targets(sources, [same & free for same in sames], adjacent, own, nb)
        if len(sames) > 1:
            out = []
            for same in sames:
                out = _merge_blocks(out, self._same_blocks(action, p, sources, [same]))
            return out
        same = sames[0]
        if not g.may_stay:  # as above, but for the few sources with an aura
            lifting = sources & aura
            out = self._same_move_targets(sources ^ lifting, [same & ~(self.occ | blocked)], adjacent, own, nb)
            for s in bit_list(lifting):  # lifted, it unblocks hexes: a block of its own
                cand = same & ~(self.occ | self.blocked_without(p, s))  # (the source is in occ)
                if adjacent and cand:
                    cand = _still_adjacent(cand, nb, g.tables.nbr_mask, own, s)
                if cand:
                    out = _with_block(out, s, cand)
            return out
        out = []
        for s in bit_list(sources):
            bit = 1 << s
            occ = self.occ ^ bit
            if blocked:
                occ |= self.blocked_without(p, s) if aura & bit else blocked
            cand = same & ~occ
            if adjacent and cand:
                cand = _still_adjacent(cand, nb, g.tables.nbr_mask, own, s)
            if cand:
                out.append((1 << s, cand))
        return out

    def _lifted_targets(self, action: CompiledAction, p: int, sources: int) -> list[tuple[int, int]]:
        """move_blocks of a target that reads the pieces: evaluated from each source with its
        piece lifted, in one context whose fields are set per source (a context and a list of
        the pieces each cost more than the target of a short slide)."""
        g, own, occ0 = self.game, self.own[p], self.occ
        t = g.tables
        neutral, blocked, target, stay = self.neutral_occ, self.blocked, action.target, g.may_stay
        aura = self.aura_own(p) if blocked else 0  # p's pieces with an aura: lifting one unblocks hexes
        adjacent, nb, nbr_mask, every = action.adjacent, self.nb[p], t.nbr_mask, t.all
        out = []
        if action.near_own is not None and not stay and not sources & aura:
            # A & next-to(own): A's free hexes next to p's pieces, but those next to the lifted one only
            part = self.near_own_part(action, p)
            part ^= part & (occ0 | blocked if blocked else occ0)  # (a target is never the source's hex)
            lone = nb ^ _touching(own, 2, t)  # hexes next to one piece of p's: next to none once it is lifted
            kept, edge = part & nb, part & lone
            if not adjacent:  # kept from every source but those next to a hex of edge: blocks between them
                apart = t.grow(edge) & sources
                while apart:  # (cand is not kept: the edge hexes next to s are kept's)
                    low = apart & (apart - 1)
                    s = (apart ^ low).bit_length() - 1
                    apart = low
                    before = sources & ((1 << s) - 1)
                    sources ^= before | (1 << s)
                    if before and kept:
                        out.append((before, kept))
                    cand = kept ^ (nbr_mask[s] & edge)
                    if cand:
                        out.append((1 << s, cand))
                if sources and kept:
                    out.append((sources, kept))
                return out
            last = 0  # the targets of the last block: the sources after it with the same ones join it
            for s in bit_list(sources):
                cand = kept ^ (nbr_mask[s] & edge)
                if adjacent and cand:
                    cand = _still_adjacent(cand, nb, nbr_mask, own, s)
                if cand == last:  # (most sources: kept, one run in Turn._steps)
                    if cand:
                        out[-1] = (out[-1][0] | 1 << s, cand)
                elif cand:
                    out.append((1 << s, cand))
                    last = cand
            return out
        owns = list(self.own)
        c = self.ctx(p, owns)
        c.nb = nbs = list(self.nb)  # (p's entry set per source below)
        if not sources & aura:  # a lift changes the pieces on its own hex only (kbdsl.expr._once_a_move):
            if blocked:
                c.occ = occ0 | blocked  # (as below)
            each = getattr(target, "each", None)
            if each is not None and not adjacent:  # the target is one walk: from every source in one call
                through, walk = each
                taken = occ0 | blocked if blocked else occ0  # (a walk never holds its source's hex)
                return walk(sources, through(c), t, every ^ (every & taken))
            c.lifted = {}
            target(c)  # what is the same from every source, found with none lifted (no origin: no walk)
        lone = nb ^ _touching(own, 2, t)  # hexes next to one piece of p's: next to none once it is lifted
        for s in bit_list(sources):
            bit = 1 << s
            occ = occ0 ^ bit
            owns[p] = own ^ bit
            nbs[p] = nb ^ (nbr_mask[s] & lone)  # next-to(own) with s lifted (the context's, kbdsl.expr._next_to_own)
            c.occ = c.owned = occ  # (as ctx(p, owns, occ, s) sets them)
            if neutral:
                c.owned = occ ^ (occ & neutral)
            c.origin = s
            if c._areas or c.memo:
                c.forget()
            if blocked:
                occ |= self.blocked_without(p, s) if aura & bit else blocked
                c.occ = occ
            cand = target(c) & every
            cand ^= cand & occ  # cand & ~occ, without a negative int
            if not stay and (cand >> s) & 1:
                cand ^= bit
            if adjacent and cand:
                cand = _still_adjacent(cand, nb, nbr_mask, own, s)
            if cand:
                out.append((bit, cand))
        c.lifted = None
        return out

    def move_sources(self, action: CompiledAction, p: int) -> int:
        """Hexes of p's pieces that the move `action` may lift."""
        own = self.own[p]
        if action.source is None:
            sources = own
        elif action.source_reads:
            sources = own & action.source(self.ctx(p))
        else:  # a hex set of the board: found once per board
            cache, key = self.game.tables.cache, ("source", id(action))
            try:  # (cheaper than cache.get, a call)
                sources = own & cache[key]
            except KeyError:
                sources = own & cache.setdefault(key, action.source(self.ctx(p)))
        if self.kind_own:
            sources &= ~self.unmovable(p, action.piece)
        return sources

    def origin_moves(self, action: CompiledAction, p: int) -> tuple[OriginTable, int, int] | None:
        """(origins, sources, free) when the moves of `action` are, from each source s, to the
        hexes origins.table[s] & free: a target per board and origin, no source with an aura, no
        adjacency, the piece leaving its hex (what kbdsl.engine.groups counts without listing); else None."""
        g, reads = self.game, action.reads
        if (
            "origin" not in reads
            or not reads <= CARD_ORIGIN
            or action.adjacent
            or g.may_stay
            or (self.choosing and id(action) in g.card_actions)
        ):
            return None
        sources = self.move_sources(action, p) if action.source or self.kind_own else self.own[p]
        blocked = self.blocked
        if blocked and sources & self.aura_own(p):  # lifting it unblocks hexes: targets by source
            return None
        card = self.hand[p] if "card" in reads else None
        free = g.tables.all ^ (self.occ | blocked if blocked else self.occ)  # (positive: cheaper to shift and mask)
        if action.by_shape is not None:
            origins, mask = self.shape_split(action, card, sources)
            return origins, sources, free & mask
        cache, key = g.tables.cache, ("by-offset", id(action), card)
        try:  # (cheaper than cache.get, a call)
            origins = cache[key]
        except KeyError:
            origins = cache[key] = OriginTable(self.board_table(action, card))
        missing = sources ^ (sources & origins.known)  # sources & ~known, without a negative int
        if missing:
            self.fill_origins(action, card, origins.table, missing)
            origins.learn(missing)
        return origins, sources, free

    def shape_split(self, action: CompiledAction, card: str | None, sources: int) -> tuple[OriginTable, int]:
        """For a move target split by board shape (`CompiledAction.by_shape`): its origin part's
        table, the shape's, these sources learnt (`shape_origins`), and its other part's hexes on
        this board for this card (found once per layout and card)."""
        t = self.game.tables
        key = ("by-shape", id(action), card)
        try:  # (cheaper than cache.get, a call)
            origins, mask = t.cache[key]
        except KeyError:
            c = self.ctx(self.current)
            c.card = card
            split = action.by_shape
            mask = t.all if split.mask is None else split.mask(c) & t.all
            origins = shape_origins(c, split, 0)
            t.cache[key] = (origins, mask)
        if sources ^ (sources & origins.known):
            shape_origins(self.ctx(self.current), action.by_shape, sources)
        return origins, mask

    def _same_move_targets(
        self, sources: int, cands: list[int], adjacent: bool, own: int, nb: int
    ) -> list[tuple[int, int]]:
        """move_blocks when every source has the same candidates, a set per card p may play (several
        while p chooses: the blocks of each merged, as _merge_blocks would): with "adjacent if
        possible", a hex next to no piece but the lifted one is not adjacent any more, so the
        sources next to such a hex have blocks of their own; the others share one."""
        if not sources:
            return []
        if not adjacent:
            cand = 0
            for c in cands:
                cand |= c
            return [(sources, cand)] if cand else []
        nbr_mask = self.game.tables.nbr_mask
        pairs = [(c & nb, c) for c in cands]  # each card's hexes next to p's pieces, and all of them
        near = common = 0
        for n, c in pairs:
            near |= n
            common |= n or c
        if not common:
            return []
        single = 0  # hexes of `near` next to exactly one of p's pieces
        touch = 0  # the pieces next to them
        for i in bit_list(near):
            touching = nbr_mask[i] & own
            if not touching & (touching - 1):
                single |= 1 << i
                touch |= touching
        out = []
        rest = sources
        for s in bit_list(touch & sources):  # (lowest first: blocks in source order)
            before = rest & ((1 << s) - 1)
            if before:
                out.append((before, common))
            rest ^= before | (1 << s)
            cut, mask = single & nbr_mask[s], 0
            for n, c in pairs:
                mask |= n & ~cut or c
            out.append((1 << s, mask))
        if rest:
            out.append((rest, common))
        return out


def _still_adjacent(cand: int, nb: int, nbr_mask: list[int], own: int, s: int) -> int:
    """The "adjacent if possible" of p's piece lifted from s: the hexes of cand next to p's pieces
    (nb: next to own) but the lifted one, or all of cand if there are none."""
    near = cand & nb
    edge = near & nbr_mask[s]  # next to the lifted piece: still next to another of p's?
    if edge:
        lifted = own ^ (1 << s)
        while edge:
            low = edge & -edge
            if not nbr_mask[low.bit_length() - 1] & lifted:
                near ^= low
            edge ^= low
    return near or cand


def _with_block(blocks: list[tuple[int, int]], s: int, cand: int) -> list[tuple[int, int]]:
    """Blocks in source order (none holding s) with the block (1 << s, cand) in its place, a
    block of sources on both sides of s split around it."""
    below = (1 << s) - 1
    for k, (sources, targets) in enumerate(blocks):
        low = sources & below
        if low != sources:  # the first block with a source above s
            around = [(low, targets), (1 << s, cand)] if low else [(1 << s, cand)]
            return blocks[:k] + around + [(sources ^ low, targets)] + blocks[k + 1 :]
    return [*blocks, (1 << s, cand)]


def _merge_blocks(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of two move_blocks lists (in source order, a block's sources a stretch of them): the
    targets of both for each source. Where both hold the same sources, stretch by stretch between
    the blocks' bounds (a piece of a block of each), else source by source."""
    if not a or not b:
        return a or b
    sa = sb = 0
    for sources, _ in a:
        sa |= sources
    for sources, _ in b:
        sb |= sources
    if sa != sb:
        pairs = _merge_pairs(*([(s, m) for sources, m in x for s in bit_list(sources)] for x in (a, b)))
        return [(1 << s, m) for s, m in pairs]
    out = []
    (ra, ma), (rb, mb) = a[0], b[0]  # what is left of each list's block: stretches of the same sources
    i = j = 1
    while True:  # the block that ends first lies within the other's (sa == sb): cut there
        ha, hb = ra.bit_length(), rb.bit_length()
        if ha <= hb:
            out.append((ra, ma | mb))
            if ha == hb:
                if j == len(b):
                    return out
                rb, mb = b[j]
                j += 1
            else:
                rb ^= ra
            ra, ma = a[i]
            i += 1
        else:
            out.append((rb, ma | mb))
            ra ^= rb
            rb, mb = b[j]
            j += 1


def _merge_pairs(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of two (source, target-mask) lists, by source in board order."""
    out = dict(a)
    for s, m in b:
        out[s] = out.get(s, 0) | m
    return sorted(out.items())
