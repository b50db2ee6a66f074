"""One moment of play: pieces, hands, deck, tiles, and the turn flow that moves it on.

`legal_actions` and `apply_action` are the hot path (bitsets over the compiled tables);
`play` is the checked, atomic entry point that explains refusals (kbdsl.explain).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kbdsl.bitset import bit_list, dilate
from kbdsl.errors import IllegalMove, SetupError
from kbdsl.events import Event, changes, snapshot
from kbdsl.explain import why_illegal
from kbdsl.expr import Ctx
from kbdsl.moves import BUILD, DISCARDS, END_TURN, Move
from kbdsl.ruleset import CompiledAction
from kbdsl.scoring import score, totals
from kbdsl.seeds import stream
from kbdsl.suggest import did_you_mean

if TYPE_CHECKING:
    from kbdsl.game import Game

SETTLEMENT = "settlement"  # the piece kind of every settlement (the language's own word)


class Tile:
    """A location tile held by a player: its kind, the hex it came from, its turn status."""

    __slots__ = ("kind", "at", "used", "new")

    def __init__(self, kind: str, at: int, used: bool = False, new: bool = False):
        self.kind, self.at, self.used, self.new = kind, at, used, new

    @property
    def status(self) -> str:
        return "used" if self.used else "new" if self.new else "unused"

    def copy(self) -> Tile:
        return Tile(self.kind, self.at, self.used, self.new)


class State:
    """One moment of a game. `play` is atomic; `clone` is cheap; JSON round-trips exactly."""

    def __init__(self, game: Game):
        self.game = game
        self._c: Ctx | None = None

    # -- construction --------------------------------------------------------
    @classmethod
    def start(cls, game: Game) -> State:
        s = cls(game)
        rules, t, n = game.rules, game.tables, game.setup.players
        s.own = [0] * n
        s.nb = [0] * n
        s.occ = 0
        s.supply = [rules.settlements] * n
        s.tiles = [[] for _ in range(n)]
        s.taken = [0] * n
        s.loc_supply = {i: rules.tiles[t.location_of[i]].supply for i in bit_list(t.location)}
        deck = [terrain for terrain, count in rules.deck.items() for _ in range(count)]
        stream(game.setup.seed, "deck:0").shuffle(deck)
        s.deck, s.discard, s.removed, s.reshuffles = deck, [], [], 0
        s.hand = [None] * n
        for p in range(n):
            s.hand[p] = s._draw()
        s.current = s.start_player = 0
        s.turn = 1
        s.ending = s.over = False
        s.idle = 0
        s.log = []
        s._new_turn()
        return s

    def clone(self) -> State:
        s = State(self.game)
        s.own, s.nb, s.occ, s.supply = list(self.own), list(self.nb), self.occ, list(self.supply)
        s.tiles = [[x.copy() for x in ts] for ts in self.tiles]
        s.taken, s.loc_supply = list(self.taken), dict(self.loc_supply)
        s.deck, s.discard, s.removed, s.reshuffles = (
            list(self.deck),
            list(self.discard),
            list(self.removed),
            self.reshuffles,
        )
        s.hand = list(self.hand)
        s.current, s.start_player, s.turn, s.ending, s.over = (
            self.current,
            self.start_player,
            self.turn,
            self.ending,
            self.over,
        )
        s.mand_left, s.built, s.log = self.mand_left, self.built, list(self.log)
        s.pending, s.pending_left = self.pending, self.pending_left
        s.idle, s.turn_supply = self.idle, self.turn_supply
        return s

    # -- queries ---------------------------------------------------------------
    @property
    def players(self) -> int:
        return len(self.own)

    @property
    def card(self) -> str | None:
        """The terrain card the player to move has played this turn (None if the deck ran dry)."""
        return self.hand[self.current]

    def settlements(self, player: int) -> list[str]:
        return self.game.tables.names(self.own[player])

    def pieces(self) -> list[tuple[str, str, int | None]]:
        """Every piece on the board as (hex name, kind, owner seat or None if neutral), for drawing.

        Settlements are the only kind the rules have so far; front ends draw kinds generically."""
        ids = self.game.tables.ids
        return [(ids[i], SETTLEMENT, p) for p, mask in enumerate(self.own) for i in bit_list(mask)]

    def scores(self) -> list[dict[str, int]]:
        """Per player, gold per card and always-on scoring, plus 'total', for the position as it stands."""
        g = self.game
        sheets = score(g.rules, g.tables, self.own, g.setup.cards, g.options)
        for sheet, total in zip(sheets, totals(sheets), strict=True):
            sheet["total"] = total
        return sheets

    def winners(self) -> list[int]:
        """Seats with the most gold (a tie is a shared victory)."""
        tot = [s["total"] for s in self.scores()]
        best = max(tot)
        return [p for p, v in enumerate(tot) if v == best]

    def _ctx(self, p: int, own: list[int] | None = None, occ: int | None = None, origin: int = -1) -> Ctx:
        """The evaluation context for player p (one object per state, refilled: this is the hot path)."""
        c = self._c
        if c is None:
            c = self._c = Ctx(self.game.tables, self.own, self.occ, self.game.options)
        c.own = own if own is not None else self.own
        c.occ = self.occ if occ is None else occ
        c.p, c.card, c.origin, c.region = p, self.hand[p], origin, None
        c.forget()
        return c

    def _mandatory_open(self) -> bool:
        return self.mand_left > 0

    def _tiles_allowed(self) -> bool:
        """Tiles are used before or after the mandatory action, never between its builds."""
        return not (self.built and self.mand_left > 0)

    # -- targets -----------------------------------------------------------------
    def _build_targets(self, action: CompiledAction, p: int) -> int:
        t = self.game.tables
        cand = action.target(self._ctx(p)) & t.all & ~self.occ
        if action.adjacent:
            near = cand & self.nb[p]
            if near:
                return near
        return cand

    def _move_targets(self, action: CompiledAction, p: int) -> list[tuple[int, int]]:
        """(source, target-mask) pairs: each source lifted first (RULINGS 12)."""
        t = self.game.tables
        own = self.own[p]
        sources = own & action.source(self._ctx(p)) if action.source else own
        out = []
        nbr_mask = t.nbr_mask
        for s in bit_list(sources):
            bit = 1 << s
            lifted = own ^ bit
            occ = self.occ ^ bit
            owns = list(self.own)
            owns[p] = lifted
            cand = action.target(self._ctx(p, owns, occ, s)) & t.all & ~occ
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

    def _usable_tiles(self, p: int) -> list[str]:
        seen = []
        for tile in self.tiles[p]:
            if not tile.used and not tile.new and tile.kind not in seen:
                seen.append(tile.kind)
        return seen

    # -- legal moves -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Every legal move as an action code (see Game.decode)."""
        if self.over:
            return []
        g, p = self.game, self.current
        out: list[int] = []
        if self.pending_left:  # a tile that builds several settlements is finished first
            action = g.rules.actions[g.kinds[self.pending]]
            base = g.encode(self.pending)
            return [base + i for i in bit_list(self._build_targets(action, p))]
        if self._mandatory_open():
            base = g.encode(BUILD)
            out.extend(base + i for i in bit_list(self._build_targets(g.mandatory, p)))
            if self.built:
                return out
        risky = -1  # settlements whose move may lose a tile (State._sole_touchers), found when needed
        for name in self._usable_tiles(p):
            action = g.rules.actions[name]
            kind = g.kind_index[name]
            if action.kind == "build":
                if self.supply[p] > 0:
                    base = g.encode(kind)
                    out.extend(base + i for i in bit_list(self._build_targets(action, p)))
            else:
                if risky < 0:
                    risky = self._sole_touchers(p)  # moving one of these may lose a tile: offer the choice
                for s, targets in self._move_targets(action, p):
                    base = g.encode(kind, 0, s)
                    if not (risky >> s) & 1:
                        out.extend(base + i for i in bit_list(targets))
                        continue
                    for i in bit_list(targets):
                        out.append(base + i)
                        for d in self._discard_choices(p, s, i):
                            out.append(g.encode(kind, i, s, d))
        if not self._mandatory_open():
            out.append(g.encode(END_TURN))
        return out

    def legal_moves(self) -> list[Move]:
        """Every legal move, as plain values (front ends, scenario checks)."""
        decode = self.game.decode
        return [decode(a) for a in self.legal_actions()]

    def targets(self, action: str, frm: str | None = None) -> list[str]:
        """Hexes the current player may choose for `action` ('build' or a tile) right now."""
        self.check_action(action)
        moves = [m for m in self.legal_moves() if m.do == action and m.discard is None]
        if frm is not None:
            frm = self.game.board.hex(frm)
            moves = [m for m in moves if m.frm == frm]
        return sorted({m.to for m in moves}, key=self.game.tables.index.get)

    def sources(self, action: str) -> list[str]:
        """Settlements the current player may move with tile `action` right now."""
        self.check_action(action)
        moves = [m for m in self.legal_moves() if m.do == action]
        return sorted({m.frm for m in moves}, key=self.game.tables.index.get)

    def check_action(self, action: str) -> None:
        """Refuse (SetupError) a name that is neither the mandatory build nor a tile of the game."""
        if action not in self.game.kind_index or action == "end":
            names = ["build", *self.game.tile_names]
            raise SetupError(
                f"unknown action {action!r} (build or a tile: {', '.join(self.game.tile_names)})"
                + did_you_mean(action, names)
            )

    # -- playing -----------------------------------------------------------------
    def play(self, move: Move | dict | str) -> list[Event]:
        """Play a move and return what it changed (kbdsl.events); an illegal one raises
        IllegalMove and changes nothing."""
        if isinstance(move, dict):
            try:
                move = Move.from_json(move)
            except ValueError as e:
                raise IllegalMove(move, str(e)) from None
        elif isinstance(move, str):
            try:
                move = Move.parse(move)
            except ValueError as e:
                raise IllegalMove(move, str(e)) from None
        elif not isinstance(move, Move):
            raise IllegalMove(move, 'a move is a Move, a JSON object such as {"do": "end"}, or text such as \'end\'')
        else:
            try:
                move = move.checked()
            except ValueError as e:
                raise IllegalMove(move, str(e)) from None
        code = self.game.to_code(move)
        legal = set(self.legal_actions())
        if code not in legal and move.discard is not None:
            plain = self.game.to_code(move._replace(discard=None))
            if plain in legal and self._loses_status(move, move.discard):
                code = plain  # discarding the lost tile itself is what happens anyway
        if code not in legal:
            raise IllegalMove(move, why_illegal(self, move, code))
        before = snapshot(self)
        self.apply_action(code)
        return changes(before, self)

    def _loses_status(self, move: Move, status: str) -> bool:
        """Whether `move` (a tile move) loses a tile of this status on its own."""
        g, p = self.game, self.current
        if g.lose_at_end or move.frm is None:
            return False
        t = g.tables
        own = (self.own[p] ^ (1 << t.index[g.board.hex(move.frm)])) | (1 << t.index[g.board.hex(move.to)])
        return any(x.status == status for x in self._lost(p, own))

    def apply_action(self, code: int) -> None:
        """Apply a code from legal_actions() (trusted: no legality check)."""
        g = self.game
        kind, disc, frm, to = g.split(code)
        p = self.current
        self.log.append(code)
        if kind == END_TURN:
            self._end_turn()
            return
        if kind == BUILD:
            self.built += 1
            self.mand_left -= 1
            self._place(p, to)
        else:
            name = g.kinds[kind]
            action = g.rules.actions[name]
            if self.pending_left:
                self.pending_left -= 1
                if not self.pending_left:
                    self.pending = 0
            else:
                self._mark_used(p, name)
                if action.kind == "build" and action.count > 1:
                    self.pending, self.pending_left = kind, action.count - 1
            if action.kind == "build":
                self._place(p, to)
            else:
                self._move(p, frm, to, DISCARDS[disc])
        self._settle()

    def _mark_used(self, p: int, name: str) -> None:
        for tile in self.tiles[p]:
            if tile.kind == name and not tile.used and not tile.new:
                tile.used = True
                return

    def _place(self, p: int, i: int) -> None:
        bit = 1 << i
        self.own[p] |= bit
        self.occ |= bit
        self.nb[p] |= self.game.tables.nbr_mask[i]
        self.supply[p] -= 1
        if self.supply[p] == 0:
            self.ending = True  # RULINGS 28: latched; nothing cancels it
        self._gain(p, i)

    def _move(self, p: int, frm: int, to: int, discard: str | None) -> None:
        if frm == to:  # allowed only by the move-may-stay option: nothing changes on the board
            return
        t = self.game.tables
        swap = (1 << frm) | (1 << to)
        self.own[p] ^= swap
        self.occ ^= swap
        self.nb[p] = dilate(self.own[p], t.nbr_mask)
        self._gain(p, to)
        if not self.game.lose_at_end:
            self._lose(p, discard)

    def _gains(self, p: int, i: int) -> list[int]:
        """RULINGS 10: the location hexes a settlement arriving on hex i takes a tile from (each
        adjacent one with a tile left that p never took from)."""
        t = self.game.tables
        near = t.nbr_mask[i] & t.location & ~self.taken[p]
        if not near:  # most hexes touch no location hex
            return []
        return [loc for loc in bit_list(near) if self.loc_supply.get(loc, 0) > 0]

    def _gain(self, p: int, i: int) -> None:
        location_of = self.game.tables.location_of
        for loc in self._gains(p, i):
            self.loc_supply[loc] -= 1
            self.taken[p] |= 1 << loc
            self.tiles[p].append(Tile(location_of[loc], loc, new=True))

    def _lost(self, p: int, own: int | None = None) -> list[Tile]:
        """Tiles of p whose location hex touches none of p's settlements (now, or with `own` instead)."""
        nbr_mask = self.game.tables.nbr_mask
        own = self.own[p] if own is None else own
        return [x for x in self.tiles[p] if not nbr_mask[x.at] & own]

    def _lose(self, p: int, discard: str | None) -> None:
        """RULINGS 11: a tile whose hex no longer touches the player's settlements is gone for good."""
        for tile in self._lost(p):
            twin = next(
                (
                    x
                    for x in self.tiles[p]
                    if x.kind == tile.kind and x is not tile and x.status == discard and x.status != tile.status
                ),
                None,
            )
            if twin is not None:  # give up the twin's status instead: the kept tile takes the lost one's
                twin.used, twin.new = tile.used, tile.new
            self.tiles[p].remove(tile)

    def _sole_touchers(self, p: int) -> int:
        """Settlements of p that alone touch the hex of one of p's tiles (moving one may lose it)."""
        if self.game.lose_at_end:
            return 0
        nbr_mask, own, out = self.game.tables.nbr_mask, self.own[p], 0
        for x in self.tiles[p]:
            touching = nbr_mask[x.at] & own
            if touching & (touching - 1) == 0:
                out |= touching
        return out

    def _discard_choices(self, p: int, frm: int, to: int) -> list[int]:
        """Extra discard variants of a move that loses a tile while p holds, or this very move takes
        (RULINGS 10), a tile of the same kind with another status (RULINGS 11)."""
        if self.game.lose_at_end:
            return []
        location_of = self.game.tables.location_of
        held = [(x.kind, x.status, x) for x in self.tiles[p]]
        held += [(location_of[loc], "new", None) for loc in self._gains(p, to)]
        out = []
        for tile in self._lost(p, (self.own[p] ^ (1 << frm)) | (1 << to)):
            for kind, status, x in held:
                d = DISCARDS.index(status)
                if x is not tile and kind == tile.kind and status != tile.status and d not in out:
                    out.append(d)
        return out

    def _settle(self) -> None:
        """RULINGS 8: a card with no eligible hex leaves the game and another is drawn.

        Also ends a several-settlement tile action early when nothing more can be built."""
        g, p = self.game, self.current
        if self.pending_left and (
            self.supply[p] == 0 or not self._build_targets(g.rules.actions[g.kinds[self.pending]], p)
        ):
            self.pending = self.pending_left = 0
        if self.mand_left <= 0 or g.mandatory is None:
            return
        if self.supply[p] == 0:
            self.mand_left = 0
            return
        while not self._build_targets(g.mandatory, p):
            if not g.uses_card.get("build") or self.hand[p] is None:
                self.mand_left = 0
                return
            self.removed.append(self.hand[p])
            self.hand[p] = self._draw()
            if self.hand[p] is None:
                self.mand_left = 0
                return

    def _draw(self) -> str | None:
        if not self.deck and self.discard:
            self.reshuffles += 1
            self.deck, self.discard = self.discard, []
            stream(self.game.setup.seed, f"deck:{self.reshuffles}").shuffle(self.deck)
        return self.deck.pop() if self.deck else None

    def _end_turn(self) -> None:
        p = self.current
        if self.game.lose_at_end:
            self._lose(p, None)
        for tile in self.tiles[p]:
            tile.used = tile.new = False
        if self.hand[p] is not None:
            self.discard.append(self.hand[p])
        self.hand[p] = self._draw()
        self.idle = 0 if self.supply[p] != self.turn_supply else self.idle + 1
        if self.idle >= self.players:
            self.over = True  # a whole round without a new settlement: nobody can build any more
            return
        if self.ending and (p + 1) % self.players == self.start_player:
            self.over = True
            return
        self.current = (p + 1) % self.players
        self.turn += 1
        self._new_turn()

    def _new_turn(self) -> None:
        self.turn_supply = self.supply[self.current]
        self.mand_left = self.game.mandatory.count if self.game.mandatory else 0
        self.built = 0
        self.pending = self.pending_left = 0
        self._settle()

    # -- JSON --------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The whole state (hidden information included): setup, pieces, deck and move log."""
        g = self.game
        ids = g.tables.ids
        return {
            "rules": g.rules.ref,
            "setup": g.setup.to_json(),
            "turn": self.turn,
            "current": self.current,
            "start": self.start_player,
            "mandatory_left": self.mand_left,
            "built": self.built,
            "pending": {"tile": self.game.kinds[self.pending], "left": self.pending_left}
            if self.pending_left
            else None,
            "ending": self.ending,
            "over": self.over,
            "idle_turns": self.idle,
            "turn_supply": self.turn_supply,
            "settlements": [self.settlements(p) for p in range(self.players)],
            "supply": list(self.supply),
            "hand": list(self.hand),
            "tiles": [
                [{"tile": x.kind, "at": ids[x.at], "used": x.used, "new": x.new} for x in ts] for ts in self.tiles
            ],
            "taken": [g.tables.names(m) for m in self.taken],
            "location_supply": {ids[i]: v for i, v in sorted(self.loc_supply.items())},
            "deck": list(self.deck),
            "discard": list(self.discard),
            "removed": list(self.removed),
            "reshuffles": self.reshuffles,
            "log": [g.decode(c).to_json() for c in self.log],
        }

    def view(self, player: int | None = None) -> dict[str, Any]:
        """What `player` may see (None: a spectator): other hands and the deck order are hidden."""
        data = self.to_json()
        data["hand"] = [h if p == player else None for p, h in enumerate(self.hand)]
        data["deck"] = len(self.deck)
        data["setup"]["seed"] = None  # the seed would let anyone recompute the deck and every hand
        data["viewer"] = player
        return data

    @classmethod
    def arrange(
        cls,
        game: Game,
        settlements: Sequence[Sequence[str]] = (),
        *,
        current: int = 0,
        start: int = 0,
        hand: Sequence[str | None] | None = None,
        built: int = 0,
        supply: Sequence[int] | None = None,
        tiles: Sequence[Sequence[Mapping[str, Any]]] | None = None,
        location_supply: Mapping[str, int] | None = None,
        ending: bool = False,
    ) -> State:
        """A position set up by hand (scenarios, puzzles, analysis) instead of by play.

        Tiles are not gained by arranged settlements; give them in `tiles`. Location hexes lose
        one tile per tile held from them unless `location_supply` says otherwise.
        """
        s = cls.start(game)
        n, t, board = s.players, game.tables, game.board
        if len(settlements) > n:
            raise SetupError(f"settlements are given for {len(settlements)} players, the game has {n}")
        for p, hexes in enumerate(settlements):
            for h in hexes:
                i = t.index[board.hex(h)]
                if (s.occ >> i) & 1:
                    raise SetupError(f"hex {t.ids[i]} holds two settlements")
                s.own[p] |= 1 << i
                s.occ |= 1 << i
        s.nb = [dilate(m, t.nbr_mask) for m in s.own]
        s.supply = list(supply) if supply is not None else [game.rules.settlements - m.bit_count() for m in s.own]
        if len(s.supply) != n or min(s.supply) < 0:
            raise SetupError("supply must give a non-negative count for every player")
        if hand is not None:
            if len(hand) != n or any(h is not None and h not in game.rules.deck for h in hand):
                raise SetupError(f"hand must name a terrain card of the deck for each of the {n} players")
            deck = s.deck + [h for h in reversed(s.hand) if h is not None]  # the dealt cards go back on top
            for h in hand:  # and the given ones come out of the deck, so every card is somewhere once
                if h is not None and h not in deck:
                    raise SetupError(f"hand: the deck has no more {h!r} cards")
                if h is not None:
                    del deck[len(deck) - 1 - deck[::-1].index(h)]  # the one nearest the top
            s.deck, s.hand = deck, list(hand)
        for p, held in enumerate(tiles or ()):
            for x in held:
                at = t.index[board.hex(x["at"])]
                if t.location_of[at] != x["tile"]:
                    raise SetupError(f"{t.ids[at]} is not a location hex of tile {x['tile']!r}")
                s.tiles[p].append(Tile(x["tile"], at, bool(x.get("used")), bool(x.get("new"))))
                s.taken[p] |= 1 << at
                s.loc_supply[at] = max(s.loc_supply[at] - 1, 0)
        for h, v in (location_supply or {}).items():
            at = t.index[board.hex(h)]
            if at not in s.loc_supply:
                raise SetupError(f"{t.ids[at]} is not a location hex")
            s.loc_supply[at] = v
        if not (0 <= current < n and 0 <= start < n):
            raise SetupError(f"current and start must be seats 0 to {n - 1}")
        s.current, s.start_player, s.ending = current, start, ending
        s.mand_left = max((game.mandatory.count if game.mandatory else 0) - built, 0)
        s.built = built
        s.turn_supply = s.supply[current] + built
        s._settle()
        return s

    @classmethod
    def from_json(cls, data: Mapping[str, Any], game: Game) -> State:
        """Rebuild a state saved by to_json (the game must be made from the same rules and setup).

        Data that is not such a state raises SetupError; to trust nothing, replay the log instead."""
        try:
            s = cls._from_json(data, game)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            raise SetupError(f"not a saved state of this game: {type(e).__name__} {e}") from None
        problem = _impossible(s, data)
        if problem:
            raise SetupError(f"not a saved state of this game: {problem}")
        return s

    @classmethod
    def _from_json(cls, data: Mapping[str, Any], game: Game) -> State:
        t = game.tables
        s = cls(game)
        idx = lambda h: t.index[game.board.hex(h)]  # noqa: E731
        s.own = [game.board.mask(hs) for hs in data["settlements"]]
        s.occ = 0
        for m in s.own:
            s.occ |= m
        s.nb = [dilate(m, t.nbr_mask) for m in s.own]
        s.supply = list(data["supply"])
        s.hand = list(data["hand"])
        s.tiles = [[Tile(x["tile"], idx(x["at"]), x["used"], x["new"]) for x in ts] for ts in data["tiles"]]
        for x in (x for ts in s.tiles for x in ts):
            if x.kind not in game.rules.tiles or t.location_of[x.at] != x.kind:
                raise ValueError(f"tiles: {t.ids[x.at]} is not a location hex of a tile {x.kind!r}")
        s.taken = [game.board.mask(hs) for hs in data["taken"]]
        s.loc_supply = dict.fromkeys(bit_list(t.location), 0) | {idx(h): v for h, v in data["location_supply"].items()}
        s.deck, s.discard, s.removed = list(data["deck"]), list(data["discard"]), list(data["removed"])
        s.reshuffles = data["reshuffles"]
        s.turn, s.current, s.start_player = data["turn"], data["current"], data["start"]
        s.mand_left, s.built = data["mandatory_left"], data["built"]
        pending = data.get("pending")
        s.pending = game.kind_index[pending["tile"]] if pending else 0
        s.pending_left = pending["left"] if pending else 0
        s.ending, s.over = data["ending"], data["over"]
        s.idle, s.turn_supply = data["idle_turns"], data["turn_supply"]
        s.log = [game.to_code(Move.from_json(m)) for m in data["log"]]
        return s

    def key(self) -> tuple:
        """A value equal for equal states (used to compare round-trips and replays)."""
        return (
            tuple(self.own),
            tuple(self.supply),
            tuple(self.hand),
            tuple(tuple((x.kind, x.at, x.used, x.new) for x in ts) for ts in self.tiles),
            tuple(self.taken),
            tuple(sorted(self.loc_supply.items())),
            tuple(self.deck),
            tuple(self.discard),
            tuple(self.removed),
            self.reshuffles,
            self.turn,
            self.current,
            self.start_player,
            self.mand_left,
            self.built,
            self.pending,
            self.pending_left,
            self.ending,
            self.over,
            self.idle,
            self.turn_supply,
            tuple(self.log),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game is other.game and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]


def _impossible(s: State, data: Mapping[str, Any]) -> str | None:
    """The first invariant the engine relies on that a state rebuilt from JSON breaks, naming the
    field (None: none). These hold in every position that play reaches."""
    g = s.game
    rules, t, n = g.rules, g.tables, g.setup.players
    if {len(x) for x in (s.own, s.supply, s.hand, s.tiles, s.taken)} != {n}:
        return f"settlements, supply, hand, tiles and taken must each have one entry per player ({n})"
    if sum(m.bit_count() for m in s.own) != s.occ.bit_count():
        return "settlements: a hex holds two settlements"
    whole = {"turn": 1, "current": 0, "start": 0, "mandatory_left": 0, "built": 0, "idle_turns": 0}
    whole |= {"turn_supply": 0, "reshuffles": 0}
    for key, lo in whole.items():
        if not _whole(data[key]) or data[key] < lo:
            return f"{key} must be a whole number of at least {lo}, not {data[key]!r}"
    if not (s.current < n and s.start_player < n):
        return f"current and start must be seats 0 to {n - 1}"
    if not all(isinstance(data[k], bool) for k in ("ending", "over")):
        return "ending and over must be true or false"
    if any(not _whole(v) or not 0 <= v <= rules.settlements for v in s.supply):
        return f"supply must be whole numbers from 0 to {rules.settlements}"
    if any(h is not None and h not in rules.deck for h in s.hand):
        return f"hand must hold terrain cards of the deck ({', '.join(rules.deck)}) or nothing"
    cards = sorted([c for c in s.hand if c is not None] + s.deck + s.discard + s.removed, key=str)
    if cards != sorted((c for c, k in rules.deck.items() for _ in range(k)), key=str):
        return "hand, deck, discard and removed together must be the rule set's deck, each card once"
    for p in range(n):
        for x in s.tiles[p]:
            if not (isinstance(x.used, bool) and isinstance(x.new, bool)):
                return "tiles: used and new must be true or false"
            if not (s.taken[p] >> x.at) & 1:
                return f"tiles: player {p} holds a tile from {t.ids[x.at]} but never took one there"
            if not t.nbr_mask[x.at] & s.own[p] and not (g.lose_at_end and p == s.current):
                return f"tiles: player {p} holds a tile from {t.ids[x.at]} but no settlement of theirs touches it"
        if s.taken[p] & ~t.location:
            return f"taken: player {p} took tiles from hexes that are not location hexes"
    for at, v in s.loc_supply.items():
        supply = rules.tiles[t.location_of[at]].supply
        if not _whole(v) or not 0 <= v <= supply:
            return f"location_supply: {t.ids[at]} must hold 0 to {supply} tiles, not {v!r}"
    if s.pending_left and (not _whole(s.pending_left) or s.pending_left < 0 or s.pending < 2):
        return "pending must name a tile and a whole number of settlements left"
    return None


def _whole(value: Any) -> bool:
    """An integer that is not a truth value (JSON's 2.0 and true are not whole numbers of a save)."""
    return isinstance(value, int) and not isinstance(value, bool)
