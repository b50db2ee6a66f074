"""The turn flow (RULINGS 6-12, 28): legal moves as action codes, and applying them.

`legal_actions` and `apply_action` are the hot path of bots and simulations: bitsets over the
compiled tables, no checks beyond what the move generator already guarantees.
"""

from __future__ import annotations

import random
from operator import attrgetter

from kbdsl.bitset import bit_list, extend_bits, nth_bit
from kbdsl.engine.compiled import NEAR, compiled, move_shapes, near_run, split_run
from kbdsl.engine.gold import Gold
from kbdsl.engine.given import Given
from kbdsl.engine.grants import TURN_FIELDS, Grants
from kbdsl.engine.groups import MoveGroup, OriginTable, SameMoves
from kbdsl.engine.later import Later
from kbdsl.engine.phases import END, REACT, START, TURNS
from kbdsl.engine.targets import Targets
from kbdsl.errors import KbdslError
from kbdsl.moves import BUILD, DISCARDS, END_TURN, Move
from kbdsl.scoring import score
from kbdsl.seeds import below

_turn_fields = attrgetter(*TURN_FIELDS)  # what a reaction sets aside (kbdsl.engine.grants), read in C


class Turn(Given, Grants, Targets, Gold, Later):
    """Whose turn it is, how far it has got, and the rules that move it on."""

    __slots__ = ()  # the attributes live in State's slots

    current: int
    start_player: int
    turn: int
    ending: bool  # the end of the game is triggered (RULINGS 28): latched
    over: bool
    idle: int  # turns in a row in which nobody placed a settlement
    mand_left: int  # settlements of the mandatory action still due this turn
    built: int  # settlements of the mandatory action built this turn
    mand_built: int  # the hexes they were built on
    pending: int  # the kind of a tile action of several steps, while unfinished
    pending_left: int  # steps still due (or allowed, for an `up-to` action)
    pending_up_to: bool  # the player may stop: any other move ends the action
    hit: int  # players a per-opponent action has taken a piece from
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
        s.mand_left, s.built, s.mand_built, s.log = self.mand_left, self.built, self.mand_built, list(self.log)
        s.pending, s.pending_left, s.pending_up_to, s.hit = (
            self.pending,
            self.pending_left,
            self.pending_up_to,
            self.hit,
        )
        s.idle, s.turn_supply, s.waived, s.drawn = self.idle, self.turn_supply, self.waived, self.drawn
        s._mandatory = self._mandatory
        self._copy_grants(s)

    # -- queries ---------------------------------------------------------------
    @property
    def card(self) -> str | None:
        """The terrain card the player to move has played this turn (None if the deck ran dry)."""
        return self.hand[self.current]

    def scores(self) -> list[dict[str, int]]:
        """Per player, gold per card, always-on scoring and source of gold won during play, plus 'total'."""
        g = self.game
        sheets = score(g.rules, g.tables, self.own, g.setup.cards, g.options, self.occ, self.tiles, g.picks, self.nb)
        for sheet, won in zip(sheets, self.gold, strict=True):
            for source, amount in won.items():
                sheet[source] = sheet.get(source, 0) + amount
            sheet["total"] = sum(sheet.values())
        return sheets

    def winners(self, sheets: list[dict[str, int]] | None = None) -> list[int]:
        """Seats with the most gold (a tie is a shared victory); `sheets`: this position's `scores()`,
        where the caller has them already."""
        tot = [s["total"] for s in (self.scores() if sheets is None else sheets)]
        best = max(tot)
        return [p for p, v in enumerate(tot) if v == best]

    def movers(self) -> list[int]:
        """Who made each move of the log: the next seat after each `end`, but where a reaction or a
        phase of grants handed the move out of seat order (`handoffs`). For a game played from its
        start (a state rebuilt from JSON knows of no handoffs before it)."""
        at, n, kind = dict(self.handoffs), self.players, self.game.code_kind
        p, out = self.start_player, []
        for k, code in enumerate(self.log):
            p = at.get(k, p)
            out.append(p)
            if kind(code) == END_TURN:
                p = (p + 1) % n
        return out

    def mandatory_open(self) -> bool:
        """Whether settlements of the mandatory action are still due this turn."""
        return self.mand_left > 0

    def tiles_allowed(self) -> bool:
        """Tiles are used before or after the mandatory action, never between its builds."""
        return not (self.built and self.mand_left > 0)

    # -- legal moves -------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        """Every legal move as an action code (see BaseGame.decode)."""
        out: list[int] = []
        for base, mask in self._runs():
            if mask.__class__ is not int:
                mask.extend(out, base)
            elif mask == 1:
                out.append(base)
            else:
                extend_bits(out, base, mask)
        return out

    def legal_runs(self) -> list[tuple[int, int | MoveGroup]]:
        """The legal moves as runs (see _runs): bitsets of targets or sources, for callers that
        read them as sets rather than one code at a time (the environments' action masks)."""
        return self._runs()

    def sample_action(self, rng: random.Random) -> int:
        """One legal move drawn uniformly by `rng`, without listing them all: the same move as
        `actions[rng.randrange(len(actions))]` for `actions = legal_actions()`, with the same use
        of `rng` (so `rng.choice(legal_actions())` and this play the same games)."""
        if self.built and self.mand_left > 0 and not (self.pending_left or self.over or self.game.any_time):
            targets = self.mandatory_targets()  # between the mandatory builds: the only moves (see _runs)
            if targets:
                return self.game.code_base[BUILD] + nth_bit(targets, below(rng.getrandbits, targets.bit_count()))
        base, mask, k = self._pick(rng)
        return base + _nth(mask, k)

    def _pick(self, rng: random.Random, usable: list[str] | None = None) -> tuple[int, int | MoveGroup, int]:
        """sample_action's draw: the run (base, mask) of the drawn move, and its index in the run
        (`usable`: the player's usable_tiles, if the caller has them)."""
        runs = self._runs(usable)
        total = 0
        for _, mask in runs:
            total += mask.bit_count()
        if not total:
            raise KbdslError("the game is over: there is no move to choose")
        k = below(rng.getrandbits, total)
        for base, mask in runs:
            size = mask.bit_count()
            if k < size:
                return base, mask, k
            k -= size
        raise AssertionError("unreachable: k < total")

    def _runs(self, usable: list[str] | None = None) -> list[tuple[int, int]]:
        """The legal moves as runs (base, mask): the codes base + i for each set bit i of mask,
        in the order of `legal_actions` (a move of its own is the run (code, 1)); `usable`: the
        player's usable_tiles, if the caller has them."""
        if self.over:
            return []
        g, p = self.game, self.current
        out: list[tuple[int, int]] = []
        self._risky = -1  # pieces whose move may lose a tile (sole_touchers), found when needed
        # a tile action of several steps that goes on: its next steps are its moves, so a second
        # tile of its kind, whose moves have the same codes, is not offered until it ends
        going = None
        if self.pending_left:
            going = g.kinds[self.pending]
            seen = self._pending_runs
            if seen is not None and seen[0] == (len(self.log), p, self.occ, self.hand[p], self.mand_left, self.drawn):
                out = seen[1]  # as _settle found them, in this position
            else:
                self._steps(going, g.rules.actions[going], out)
            self._pending_runs = None
            if not self.pending_up_to:  # ... and is finished first
                if g.any_time:
                    self._any_time(out, going)
                return out
        if self.mand_left > 0:
            targets = self.mandatory_targets()
            if targets:
                out.append((g.code_base[BUILD], targets))
            if self.built:
                if g.any_time:
                    self._any_time(out, going)
                return out
        plan = g.tile_plan
        plain = not self.choosing and self.supply[p] > 0
        for tile in self.usable_tiles(p) if usable is None else usable:
            for name, action, base, by_card in plan[tile]:  # a tile offering a choice: each part
                if name == going:
                    continue
                if by_card is None:
                    self._steps(name, action, out)
                    continue
                if plain:  # a build on a table per board
                    targets = self.table_build_targets(action, by_card, p)
                elif self.supply[p] > 0:
                    targets = self.build_targets(action, p)
                else:
                    continue
                if targets:
                    out.append((base, targets))
        if self.mand_left <= 0 and not (g.forced and self._forced_use(out)):
            out.append((g.code_base[END_TURN], 1))
        return out

    def _forced_use(self, runs: list) -> bool:
        """Whether one of these runs uses a tile of a kind that must be used when it can (`forced`)."""
        g = self.game
        size = 4 * g.tables.n * g.tables.n  # codes of one action kind (BaseGame.encode)
        for base, _ in runs:
            row = g.kind_rows[base // size]
            if row is not None and row[2] in g.forced:
                return True
        return False

    _risky: int = -1
    _mandatory: tuple | None = None  # (occ, card, player, targets) of the last mandatory_targets
    # (position, runs) of a tile action of several steps, as _settle found them after a step: the
    # next _runs' first runs (a step's targets may cost a context and a walk per piece)
    _pending_runs: tuple | None = None

    def mandatory_targets(self) -> int:
        """build_targets of the mandatory action for the player to move, computed once per
        position (`_settle` needs them too)."""
        p = self.current
        seen, card = self._mandatory, self.hand[p]
        if seen is not None and seen[0] == self.occ and seen[1] is card and seen[2] == p:
            return seen[3]
        g = self.game
        action, tables = g.mandatory, g.mandatory_tables
        if tables is not None and not self.choosing:  # the common case: a table per board
            targets = self.table_build_targets(action, tables, p)
        elif tables is not None and id(action) in g.card_actions:  # a choice of cards: each card's table
            targets = self._cards_board_targets(action, p, tables)
        else:
            targets = self.build_targets(action, p)
        self._mandatory = (self.occ, card, p, targets)
        return targets

    def _any_time(self, out: list[tuple[int, int]], going: str | None) -> None:
        """Tiles usable between builds (window: any-time), but the action `going` on (see _runs)."""
        for tile in self.usable_tiles(self.current):
            if tile in self.game.any_time:
                for name in self.game.rules.entries.get(tile, ()):
                    if name != going:
                        self._steps(name, self.game.rules.actions[name], out)

    def _steps(self, name: str, action, out: list[tuple[int, int]]) -> None:
        """The runs of one step of a tile's action (only runs with a move in them)."""
        g, p = self.game, self.current
        kind = g.kind_index[name]
        base = g.code_base[kind]
        what = action.kind
        targets = 0
        if what == "build":
            if self.supply[p] > 0:
                targets = self.build_targets(action, p)
        elif what == "move":
            if move_shapes(g)[name] == NEAR and not (self.choosing and id(action) in g.card_actions):
                # A & next-to(own) as the compiled playout lists it (one near_run, split where a piece
                # alone touches a tile's hex), not move_blocks' block a piece apart (a step 44 -> 20 us)
                sources = self.move_sources(action, p)
                if not (self.blocked and sources & self.aura_own(p)):  # (a lift unblocking hexes: below)
                    cand = self.near_own_part(action, p)
                    cand ^= cand & (self.occ | self.blocked)
                    nb = self.nb[p]
                    if sources and cand & nb:
                        run = near_run(sources, cand, nb, g.tables, self.own[p])
                        if run.size:
                            if self._risky < 0:
                                self._risky = self.sole_touchers(p)
                            if risky := self._risky & sources:
                                split_run(self, out, kind, base, run, risky)
                            else:
                                out.append((base, run))
                    return
            grouped = self.origin_moves(action, p)
            pairs = self.move_blocks(action, p) if grouped is None else None
            if not (pairs or (grouped and grouped[1])):
                return  # no piece to move (sole_touchers below is not needed)
            if self._risky < 0:
                self._risky = self.sole_touchers(p)  # moving one of these may lose a tile: offer the choice
            risky, n = self._risky, g.tables.n
            gain_zone = -1  # hexes where a piece would take a tile (found when needed)
            if pairs is not None:
                for sources, targets in pairs:  # sources with the same targets: one run, split at
                    rest, hit = sources, sources & risky  # each source whose move has variants
                    while hit:  # (lowest first, as in the group below)
                        low = hit & (hit - 1)
                        s = (hit ^ low).bit_length() - 1
                        hit = low
                        special, lifted, gain_zone = self._special_targets(s, targets, gain_zone)
                        if not special:
                            continue
                        before = rest & ((1 << s) - 1)
                        rest ^= before | (1 << s)
                        if before:
                            self._same(out, base, before, targets, n)
                        self._special_runs(out, kind, base + s * n, s, targets, special, lifted)
                    if rest:
                        self._same(out, base, rest, targets, n)
                return
            # one group of runs for the sources whose moves are all plain, split at the others
            origins, sources, free = grouped
            risky &= sources
            while risky:  # lowest first (a loop, not bit_list: there are one or two, a call costs more)
                low = risky & (risky - 1)
                s = (risky ^ low).bit_length() - 1  # (three int operations, no negative int)
                risky = low
                targets = origins.table[s] & free
                if not targets:
                    continue
                special, lifted, gain_zone = self._special_targets(s, targets, gain_zone)
                if not special:
                    continue
                before = sources & ((1 << s) - 1)
                sources ^= before | (1 << s)
                if before:
                    self._group(out, base, origins, before, free, n)
                self._special_runs(out, kind, base + s * n, s, targets, special, lifted)
            if sources:  # self._group, inline (the common case: the only group)
                size = origins.count(sources, free)
                if size:
                    out.append((base, MoveGroup(origins, sources, free, size, n)))
            return
        elif what == "place" and action.piece in self.kind_supply:
            if self.kind_supply[action.piece][p] > 0:
                targets = self.place_targets(action, p)
        elif what == "return":
            targets = self.return_targets(action, p)
        elif what == "place":
            if self.stock[action.piece] > 0:
                targets = self.build_targets(action, p)
        elif what == "remove":
            hit = self.hit if self.pending_left and g.kinds[self.pending] == name else 0
            targets = self.remove_targets(action, p, hit)
        else:  # gold, ignore, draw: no choice
            targets = 1
        if targets:
            out.append((base, targets))

    @staticmethod
    def _same(out: list, base: int, sources: int, targets: int, n: int) -> None:
        """The run of the moves of pieces on `sources` onto the same `targets`: a SameMoves, or the
        targets of the one source."""
        if sources & (sources - 1):
            out.append((base, SameMoves(sources, targets, n)))
        else:
            out.append((base + (sources.bit_length() - 1) * n, targets))

    @staticmethod
    def _group(out: list, base: int, origins: OriginTable, sources: int, free: int, n: int) -> None:
        """A MoveGroup run of the moves of pieces on `sources`, if there is one."""
        size = origins.count(sources, free)
        if size:
            out.append((base, MoveGroup(origins, sources, free, size, n)))

    def _special_targets(self, s: int, targets: int, gain_zone: int) -> tuple[int, list, int]:
        """For moving p's piece on s, which alone touches a tile's hex: the targets that may have
        discard variants (those touching no lifted tile's hex, where the move loses them all, and,
        unless a lost kind is held twice, where a tile is taken), the tiles lifted, and gain_zone
        (found if needed; -1: not yet)."""
        g, p = self.game, self.current
        nbr_mask = g.tables.nbr_mask
        lifted = self.lost(p, g.lose_now, self.own[p] ^ (1 << s))  # tiles lost unless the target touches them
        kept = 0  # hexes next to a lifted tile's hex: a piece landing there keeps that tile
        for x in lifted:
            kept |= nbr_mask[x.at]
        special = targets ^ (targets & kept)  # targets & ~kept, without a negative int
        if special and not self.held_twice(p, lifted):
            # a variant needs a tile of a lost kind taken there: first the board's hexes
            # next to where such a tile may lie, then those where p would take one now
            zone = 0
            for x in lifted:
                zone |= self.tile_zone(x.kind)
            special &= zone
            if special:
                if gain_zone < 0:
                    gain_zone = self.gain_zone(p)
                special &= gain_zone
        return special, lifted, gain_zone

    def _special_runs(self, out: list, kind: int, code: int, s: int, targets: int, special: int, lifted: list) -> int:
        """The runs of moving the piece on s: the special targets one by one, each followed by its
        discard variants (a special target loses every lifted tile), the other targets as runs
        between them, in code order. Returns the number of moves appended."""
        g, p = self.game, self.current
        using = None if self.pending_left and kind == self.pending else g.kind_rows[kind][2]
        rest = targets
        # a target where p takes no tile (gains) has the variants of every other such target: found
        # once (holding two of a lost kind, most targets are special; gains read target by target
        # costs less than gain_zone)
        several, plain = special & (special - 1), None
        total = targets.bit_count()  # (each target once, and the variants)
        for i in bit_list(special):
            lower = rest & ((1 << i) - 1)
            if lower:
                out.append((code, lower))
            rest ^= lower | (1 << i)
            out.append((code + i, 1))
            if not several or self.gains(p, i):
                choices = self.discard_choices(p, i, lifted, using)
            elif plain is None:
                choices = plain = self.discard_choices(p, i, lifted, using)
            else:
                choices = plain
            for d in choices:
                out.append((g.encode(kind, i, s, d), 1))
            total += len(choices)
        if rest:
            out.append((code, rest))
        return total

    def place_targets(self, action, p: int) -> int:
        """Hexes where p may place a piece of a player-owned kind (its cover on hexes the action allows)."""
        blocked = 0 if action.piece in self.game.past_auras else self.blocked
        # a target on the board alone: board_target's table (no context to fill)
        allowed = action.target(self.ctx(p)) & self.game.tables.all if action.reads else self.board_target(action, None)
        allowed ^= allowed & (self.occ | blocked)  # allowed & ~taken, without a negative int
        return self.kind_targets(action.piece, p, allowed, action.adjacent, action.required)

    def return_targets(self, action, p: int) -> int:
        """Hexes of p's pieces of the action's kind that p may take back to the supply."""
        if action.piece == self.game.rules.piece_kind:  # one's own settlements (not pieces of other kinds)
            mine = self.own[p]
            for masks in self.kind_own.values():
                mine ^= mine & masks[p]
            return mine & action.source(self.ctx(p)) if action.source else mine
        mine = self.kind_own[action.piece][p]
        if action.piece in self.game.footprints:  # a piece covering several hexes is named by its centre
            mine = sum(1 << i for i in self.centres(action.piece, mine))
        return mine & action.source(self.ctx(p)) if action.source else mine

    def discard_applies(self, move: Move, status: str) -> bool:
        """Whether `move` (a tile move) loses a tile of a kind one of whose copies has this status
        (RULINGS 11): then naming it is either a listed variant or what the default does anyway."""
        g, p = self.game, self.current
        if move.frm is None:
            return False
        t = g.tables
        to = t.index[g.board.hex(move.to)]
        own = (self.own[p] ^ (1 << t.index[g.board.hex(move.frm)])) | (1 << to)
        kind = g.kind_index[move.do]
        using = None if self.pending_left and kind == self.pending else g.kind_rows[kind][2]
        return any(status in self.copy_statuses(p, to, x, using) for x in self.lost(p, g.lose_now, own))

    # -- applying ----------------------------------------------------------------
    def apply_action(self, code: int) -> None:
        """Apply a code from legal_actions() (trusted: no legality check)."""
        g = self.game
        n = g.tables.n
        kd, rest = code // (n * n), code % (n * n)  # BaseGame.split, inline: kd is kind * 4 + discard
        frm, to = rest // n, rest % n  # (faster than divmod, a call)
        kind, disc = kd >> 2, kd & 3
        p = self.current
        self._mandatory = None
        self.log.append(code)
        if self.pending_left and self.pending_up_to and kind != self.pending:
            self._end_pending()  # another move ends an action one may stop
        if kind == END_TURN:
            self._end_turn()
            return
        if (
            self.choosing
            and (kind == BUILD or (kind >= 2 and id(g.kind_rows[kind][1]) in g.card_actions))
            and (kind == BUILD or self.hand[p] not in g.leave_choice)
        ):
            self._play_card(p, to)
        if kind == BUILD:
            self._mandatory_build(p, to)
        else:
            name, action, tile, after = g.kind_rows[kind]
            if self.pending_left and kind == self.pending:
                self.pending_left -= 1
                if not self.pending_left:
                    self._end_pending()
            else:
                self.mark_used(p, tile)
                if tile in g.instead:  # used instead of the mandatory action: that is done
                    self.mand_left = 0
                if action.steps:  # per-opponent: one piece of each other player who has one
                    left = self.players - 2 if action.per_opponent else action.count - 1
                    if left > 0:
                        self.pending, self.pending_up_to, self.pending_left = kind, action.up_to, left
            if action.kind == "build":
                self._build(p, to)
            elif action.kind == "move":
                self._move(p, frm, to, DISCARDS[disc])
            else:
                self._do(p, name, action, frm, to, DISCARDS[disc])
            if after is not None and not self.pending_left:  # `A then B`: B is due next
                self.pending, self.pending_left = g.kind_index[after], g.rules.actions[after].count
                self.pending_up_to = g.rules.actions[after].up_to
        if self.pending_left or (self.mand_left > 0 and not (self.supply[p] and self.mandatory_targets())):
            self._settle()  # (else it has nothing to do)
        if self.reacting:  # a hex's last tile was taken: the other players' reactions first
            self._react()

    def _play_card(self, p: int, to: int) -> None:
        """p, choosing among cards, plays the one of hex `to`'s terrain (the first build, or move
        of a card-using action, of the turn); a card of several choices may build another number."""
        g = self.game
        self.commit(p, g.tables.terrain_at(to))
        if g.face_count and self.wild is not None and not self.built and self.mand_left > 0:
            n = g.face_count.get((self.wild, self.hand[p]))
            if n is not None:
                self.mand_left += n - g.mandatory.count

    def _mandatory_build(self, p: int, to: int) -> None:
        """One settlement of the mandatory action, on hex `to`."""
        self.built += 1
        self.mand_left -= 1
        self.mand_built |= 1 << to
        self._build(p, to)
        if not self.mand_left and self.game.on_mandatory:
            self._pay(p, self.game.on_mandatory, self.mand_built)

    def play_random(self, rngs: list[random.Random], stop_turn: int = 1 << 30, max_moves: int = 1 << 30) -> None:
        """Play uniformly random moves, `rngs[p]` drawing for seat p, until the game ends, the turn
        counter reaches `stop_turn` or `max_moves` are made: the same moves as applying
        `sample_action(rngs[current])` in a loop, which is what plays where the rules have no
        mandatory action; elsewhere the loop compiled for the rules (kbdsl.engine.compiled)."""
        run = compiled(self.game, self)
        if run is not None:
            run(self, rngs, stop_turn, max_moves)
            return
        moves = 0
        while not self.over and self.turn < stop_turn and moves < max_moves:
            moves += 1
            self.apply_action(self.sample_action(rngs[self.current]))

    def _holds_any_time(self, p: int) -> bool:
        """Whether p holds a tile, or has a grant, usable between the mandatory builds (window:
        any-time): only then do the compiled playout's shortcuts, which take the builds alone, not apply."""
        any_time = self.game.any_time
        for tile in self.tiles[p]:  # noqa: SIM110 (a loop: any() of a generator costs more)
            if tile.kind in any_time:
                return True
        return not any_time.isdisjoint(self.game.grants) and any(name in any_time for name in self.granted(p))

    def _do(self, p: int, name: str, action, frm: int, to: int, discard: str | None) -> None:
        what = action.kind
        if what == "build":
            self._build(p, to)
        elif what == "move":
            self._move(p, frm, to, discard)
        elif what == "place" and action.piece in self.kind_supply:
            pays = self.game.on_build and action.piece not in self.game.unpaid_kinds
            cover = self.place_kind(p, action.piece, to)
            for i in (to,) if cover == 1 << to else bit_list(cover):  # each hex covered arrives like a build
                self._landed(p, i)
                if pays:
                    self._pay(p, self.game.on_build, 1 << i)
        elif what == "return":
            if action.piece == self.game.rules.piece_kind:
                self.take_back(p, to)  # one's own settlement back to the supply
            else:
                self.return_kind(p, to)
            if self.game.lose_now:
                self.lose(p, None, self.game.lose_now)
        elif what == "draw":  # the top card, face up onto the discard pile: its terrain is `drawn`
            self.set_drawn(self.draw())
            if self.drawn is not None:
                self.discard.append(self.drawn)
        elif what == "place":
            self.place_neutral(action.piece, to)
        elif what == "remove":
            q = self.owner(to)
            self.take_back_any(q, to)
            if not self.game.end_latched:
                self.ending = min(self.supply) == 0
            if self.pending_left:
                self.hit |= 1 << q
            if self.game.lose_now:
                self.lose(q, None, self.game.lose_now)  # the owner's tiles by that hex may go
        elif what == "gold":
            self.pay(p, name, action.count)
        elif what == "later":  # a modifier of p's next turn (kbdsl.engine.later)
            self.delay(p, action.count if not action.decl.modifiers else 0, bool(action.decl.modifiers))
        else:  # ignore adjacent-if-possible: for the next settlement built
            self.waived = True

    def _build(self, p: int, i: int) -> None:
        g = self.game
        bit = 1 << i  # place_piece, inline
        self.own[p] |= bit
        self.occ |= bit
        self.nb[p] |= g.tables.nbr_mask[i]
        left = self.supply[p] - 1
        self.supply[p] = left
        self.waived = False
        if not left:
            self.ending = True  # RULINGS 28: latched; nothing cancels it
        if g.tile_near[i]:  # most hexes touch no tile hex: nothing to take there
            if g.on_gain:
                self._landed(p, i)
            else:
                self.gain(p, i)
        if g.on_build:
            self._pay(p, g.on_build, 1 << i)

    def _pay(self, p: int, triggers, built: int) -> None:
        """Gold of the cards whose trigger fired, for the hexes just built (`pay` in line: a call a
        card would cost more than its two lines, at every build)."""
        c = self.ctx(p)
        c.built = built  # (no expression sets it)
        gold = self.gold[p]
        for card, fn in triggers:
            amount = fn(c)
            if amount:
                gold[card] = gold.get(card, 0) + amount

    def _move(self, p: int, frm: int, to: int, discard: str | None) -> None:
        if frm == to:  # allowed only by the move-may-stay option: nothing changes on the board
            return
        g = self.game
        self.move_piece(p, frm, to)
        if self.kind_own:
            self.move_kind(p, frm, to)
        if g.tile_near[to]:  # most hexes touch no tile hex (as in _build)
            if g.on_gain:
                self._landed(p, to)
            else:
                self.gain(p, to)
        if g.lose_now and g.tile_near[frm]:  # only a tile by the hex left may lose its last toucher
            self.lose(p, discard, g.lose_now)

    def _landed(self, p: int, i: int) -> None:
        """A piece of p arrived on hex i: it takes tiles, and tiles used when gained act at once."""
        on_gain = self.game.on_gain
        if not on_gain:
            self.gain(p, i)
            return
        held = len(self.tiles[p])
        self.gain(p, i)
        if len(self.tiles[p]) > held:
            for tile in self.tiles[p][held:]:
                if tile.kind in on_gain:
                    self.tiles[p].remove(tile)
                    action = self.game.rules.actions[tile.kind]
                    self._do(p, tile.kind, action, 0, 0, None)

    def _settle(self) -> None:
        """RULINGS 8: a card with no eligible hex leaves the game and another is drawn.

        Also ends a tile action of several steps when nothing more can be done with it. It has
        nothing to do unless such an action goes on or mandatory builds are due with no supply or
        no target: `pending_left or (mand_left > 0 and not (supply[p] and mandatory_targets()))`,
        which the hot callers (apply_action, _new_turn, the compiled playout) test inline to save a call."""
        g, p = self.game, self.current
        if self.pending_left:
            runs: list[tuple[int, int]] = []
            self._risky = -1
            name = g.kinds[self.pending]
            self._steps(name, g.rules.actions[name], runs)
            if not runs:
                self._end_pending()
            else:  # the next _runs' (the key: what may change them before it, or in what follows here)
                self._pending_runs = ((len(self.log), p, self.occ, self.hand[p], self.mand_left, self.drawn), runs)
        if self.mand_left <= 0 or g.mandatory is None:
            return
        if self.supply[p] == 0:
            self.mand_left = 0
            return
        while not self.mandatory_targets():
            if not g.uses_card.get("build") or self.hand[p] is None:
                self.mand_left = 0
                return
            self.replace_card(p)
            if self.hand[p] is None:
                self.mand_left = 0
                return

    def _end_pending(self) -> None:
        self.pending = self.pending_left = self.hit = 0
        self.pending_up_to = False

    def _end_turn(self) -> None:
        p = self.current
        if self.phase == REACT:  # a reaction is over: the next player's, or back to the turn
            if self.tiles[p]:  # tiles it took are usable from the reactor's next turn (nothing expires)
                self.tiles[p] = [x.fresh for x in self.tiles[p]]
            self._next_reactor()
            return
        if self.phase:  # a turn of a phase of grants: no cards
            if self.tiles[p]:
                self.refresh_tiles(p)
            self._phase_turn()
            return
        if not self.game.plain_hand or self.spare[p] or self.wild is not None:
            self.refill(p)  # the hand the rules and the tiles held now give (kbdsl.engine.hand)
        else:
            self.discard_and_draw(p)
        if self.tiles[p]:
            self.refresh_tiles(p)  # (nothing to do for a player holding no tile)
        self.idle = 0 if self.supply[p] != self.turn_supply else self.idle + 1
        players = len(self.own)
        if self.idle >= players:
            self._finish()  # a whole round without a new settlement: nobody can build any more
            return
        after = (p + 1) % players
        if self.ending and after == self.start_player:
            self._finish()
            return
        self.current = after
        self.turn += 1
        self._new_turn()

    def _begin(self) -> None:
        """The first turn of the game, or the start-of-game phase of grants before it."""
        if self.game.grants_in[START]:  # (the phase's grants, found once per game set-up)
            self.phase, self.phase_turns = START, 0
            self._phase_turn()
        else:
            self._new_turn()

    def _finish(self) -> None:
        """The end of the game, after its end-of-game phase of grants if the rules have one."""
        if self.phase != END and self.game.grants_in[END]:
            self.phase, self.phase_turns = END, 0
            self._phase_turn()
        else:
            self.over = True

    def _phase_turn(self) -> None:
        """The next turn of a phase of grants: the next player in seat order from the start player
        with a use of them (the others are skipped); after the last, the phase is over."""
        n = self.players
        while self.phase_turns < n:
            p = (self.start_player + self.phase_turns) % n
            self.phase_turns += 1
            self.current = p
            self.mand_left = self.built = self.mand_built = self.pending = self.pending_left = self.hit = 0
            self.pending_up_to = self.waived = self.choosing = False
            if self.drawn is not None:
                self.set_drawn(None)
            self.give_grants(p)
            if self.granted(p):
                if self.log:
                    self.turn += 1
                self.turn_supply = self.supply[p]
                self.handoffs += ((len(self.log), p),)
                return
        if self.phase == START:
            self.phase, self.current = TURNS, self.start_player
            self.handoffs += ((len(self.log), self.current),)
            if self.log:
                self.turn += 1
            self._new_turn()
        else:
            self.over = True

    def _react(self) -> None:
        """Offer the reactions to the other players, in seat order from the turn's player's left."""
        self.reacting = False
        p, n = self.current, self.players
        self.react_saved = _turn_fields(self)  # (in C: no bytecode a field)
        self.react_queue = tuple((p + k) % n for k in range(1, n))
        self.phase = REACT
        self._next_reactor()

    def _next_reactor(self) -> None:
        """The next player of the queue with a use of a reaction gets a turn of it; after the last,
        the turn's player goes on."""
        while self.react_queue:
            q, self.react_queue = self.react_queue[0], self.react_queue[1:]
            self.current = q
            self.mand_left = self.built = self.mand_built = self.pending = self.pending_left = self.hit = 0
            self.pending_up_to = self.waived = self.choosing = False
            self.give_grants(q)
            if self.granted(q):
                self._mandatory = None
                self.handoffs += ((len(self.log), q),)
                return
        for k, v in zip(TURN_FIELDS, self.react_saved, strict=True):
            setattr(self, k, v)
        self.react_saved, self.phase, self._mandatory = None, TURNS, None
        self.handoffs += ((len(self.log), self.current),)
        if self._c is not None:
            self._c.drawn = self.drawn
        p = self.current  # the reactions' builds may have taken the last targets of what is due
        if self.pending_left or (self.mand_left > 0 and not (self.supply[p] and self.mandatory_targets())):
            self._settle()  # (RULINGS 8: a card left with no hex is replaced, as after a move of one's own)

    def _new_turn(self) -> None:
        g, p = self.game, self.current
        self.turn_supply = self.supply[p]
        self.mand_left = g.mandatory.count if g.mandatory else 0
        self.built = self.mand_built = self.pending = self.pending_left = self.hit = 0  # _end_pending, inline
        self.pending_up_to = self.waived = False
        if self.drawn is not None:
            self.set_drawn(None)
        if g.delayed and self.later[p] is not None:  # modifiers waiting for this turn (kbdsl.engine.later)
            extra, ignore = self.take_later(p)
            if self.mand_left > 0:
                self.mand_left += extra
            self.waived = ignore
        if g.draw_at_start:
            self.fill(p, self.hand_rules(p)[0])
        self.choosing = bool(self.spare[p]) or self.hand[p] in g.faces
        if g.grants:
            self.give_grants(p)
        if self.mand_left > 0 and not (self.supply[p] and self.mandatory_targets()):
            self._settle()  # (else it has nothing to do: no action goes on yet)


def _nth(mask: int | MoveGroup, k: int) -> int:
    """The code offset of the k-th move of a run's mask (a hex mask or a MoveGroup)."""
    return nth_bit(mask, k) if mask.__class__ is int else mask.nth(k)
