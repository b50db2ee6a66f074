"""The turn flow (RULINGS 6-12, 28): legal moves as action codes, and applying them.

`legal_actions` and `apply_action` are the hot path of bots and simulations: bitsets over the
compiled tables, no checks beyond what the move generator already guarantees.
"""

from __future__ import annotations

from kbdsl.bitset import bit_list
from kbdsl.engine.targets import Targets
from kbdsl.engine.tiles import Holdings
from kbdsl.moves import BUILD, DISCARDS, END_TURN, Move
from kbdsl.scoring import score, totals


class Turn(Holdings, Targets):
    """Whose turn it is, how far it has got, and the rules that move it on."""

    current: int
    start_player: int
    turn: int
    ending: bool  # the end of the game is triggered (RULINGS 28): latched
    over: bool
    idle: int  # turns in a row in which nobody placed a settlement
    mand_left: int  # settlements of the mandatory action still due this turn
    built: int  # settlements of the mandatory action built this turn
    pending: int  # the kind of a tile action that builds several settlements, while unfinished
    pending_left: int
    turn_supply: int  # the player's supply when the turn started
    log: list[int]

    def _copy_turn(self, s: Turn) -> None:
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

    # -- queries ---------------------------------------------------------------
    @property
    def card(self) -> str | None:
        """The terrain card the player to move has played this turn (None if the deck ran dry)."""
        return self.hand[self.current]

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

    def mandatory_open(self) -> bool:
        """Whether settlements of the mandatory action are still due this turn."""
        return self.mand_left > 0

    def tiles_allowed(self) -> bool:
        """Tiles are used before or after the mandatory action, never between its builds."""
        return not (self.built and self.mand_left > 0)

    # -- legal moves -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Every legal move as an action code (see BaseGame.decode)."""
        if self.over:
            return []
        g, p = self.game, self.current
        out: list[int] = []
        if self.pending_left:  # a tile that builds several settlements is finished first
            action = g.rules.actions[g.kinds[self.pending]]
            base = g.encode(self.pending)
            return [base + i for i in bit_list(self.build_targets(action, p))]
        if self.mandatory_open():
            base = g.encode(BUILD)
            out.extend(base + i for i in bit_list(self.build_targets(g.mandatory, p)))
            if self.built:
                return out
        for name in self.usable_tiles(p):
            action = g.rules.actions[name]
            kind = g.kind_index[name]
            if action.kind == "build":
                if self.supply[p] > 0:
                    base = g.encode(kind)
                    out.extend(base + i for i in bit_list(self.build_targets(action, p)))
            elif self.has_twins(p):  # a move may lose one of two same-kind tiles: offer the choice
                for s, targets in self.move_targets(action, p):
                    base = g.encode(kind, 0, s)
                    for i in bit_list(targets):
                        out.append(base + i)
                        for d in self.discard_choices(p, s, i):
                            out.append(g.encode(kind, i, s, d))
            else:
                for s, targets in self.move_targets(action, p):
                    base = g.encode(kind, 0, s)
                    out.extend(base + i for i in bit_list(targets))
        if not self.mandatory_open():
            out.append(g.encode(END_TURN))
        return out

    def loses_status(self, move: Move, status: str) -> bool:
        """Whether `move` (a tile move) loses a tile of this status on its own."""
        g, p = self.game, self.current
        if move.frm is None:
            return False
        t = g.tables
        own = (self.own[p] ^ (1 << t.index[g.board.hex(move.frm)])) | (1 << t.index[g.board.hex(move.to)])
        return any(x.status == status for x in self.lost(p, g.lose_now, own))

    # -- applying ----------------------------------------------------------------
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
            self._build(p, to)
        else:
            name = g.kinds[kind]
            action = g.rules.actions[name]
            if self.pending_left:
                self.pending_left -= 1
                if not self.pending_left:
                    self.pending = 0
            else:
                self.mark_used(p, name)
                if action.kind == "build" and action.count > 1:
                    self.pending, self.pending_left = kind, action.count - 1
            if action.kind == "build":
                self._build(p, to)
            else:
                self._move(p, frm, to, DISCARDS[disc])
        self._settle()

    def _build(self, p: int, i: int) -> None:
        self.place_piece(p, i)
        if self.supply[p] == 0:
            self.ending = True  # RULINGS 28: latched; nothing cancels it
        self.gain(p, i)

    def _move(self, p: int, frm: int, to: int, discard: str | None) -> None:
        if frm == to:  # allowed only by the move-may-stay option: nothing changes on the board
            return
        self.move_piece(p, frm, to)
        self.gain(p, to)
        if self.game.lose_now:
            self.lose(p, discard, self.game.lose_now)

    def _settle(self) -> None:
        """RULINGS 8: a card with no eligible hex leaves the game and another is drawn.

        Also ends a several-settlement tile action early when nothing more can be built."""
        g, p = self.game, self.current
        if self.pending_left and (
            self.supply[p] == 0 or not self.build_targets(g.rules.actions[g.kinds[self.pending]], p)
        ):
            self.pending = self.pending_left = 0
        if self.mand_left <= 0 or g.mandatory is None:
            return
        if self.supply[p] == 0:
            self.mand_left = 0
            return
        while not self.build_targets(g.mandatory, p):
            if not g.uses_card.get("build") or self.hand[p] is None:
                self.mand_left = 0
                return
            self.replace_card(p)
            if self.hand[p] is None:
                self.mand_left = 0
                return

    def _end_turn(self) -> None:
        p = self.current
        self.refresh_tiles(p)
        self.discard_and_draw(p)
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
