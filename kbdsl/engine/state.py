"""One moment of play: the checked, atomic, serialisable `State` on top of the turn engine.

`play` checks a move against the legal ones, explains a refusal (kbdsl.engine.explain) and
reports what changed (kbdsl.engine.events); `apply_action` (kbdsl.engine.turn) is the trusted
hot path. JSON round-trips exactly; `clone` is cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kbdsl.bitset import bit_list
from kbdsl.engine.events import Event, changes, snapshot
from kbdsl.engine.explain import why_illegal
from kbdsl.engine.possible import arranged, impossible_play, misplaced
from kbdsl.engine.setup import BaseGame
from kbdsl.engine.tiles import Tile
from kbdsl.engine.turn import Turn
from kbdsl.errors import IllegalMove, SetupError
from kbdsl.moves import Move
from kbdsl.suggest import did_you_mean

__all__ = ["State", "Tile"]


class State(Turn):
    """One moment of a game. `play` is atomic; `clone` is cheap; JSON round-trips exactly."""

    # Every attribute in a slot: a state has more than a dict's shared keys hold (30), and slots
    # keep the hot path's attribute reads and writes fast.
    __slots__ = (
        *("game", "_c", "_risky", "_mandatory", "_pending_runs", "drawn", "waived"),
        *("own", "nb", "occ", "supply", "neutral", "stock", "neutral_occ"),
        *("kind_own", "kind_all", "kind_supply", "blocked"),
        *("tiles", "taken", "loc_supply", "dealt"),
        *("deck", "discard", "removed", "reshuffles", "deck_seed", "hand", "spare", "choosing", "wild", "gold"),
        *("current", "start_player", "turn", "ending", "over", "idle", "log", "turn_supply"),
        *("mand_left", "built", "mand_built", "pending", "pending_left", "hit", "pending_up_to"),
        "later",
        *("grant_left", "phase", "phase_turns", "reacting", "react_queue", "react_saved", "handoffs"),
    )

    def __init__(self, game: BaseGame):
        self.game = game
        self._c = self._mandatory = self._pending_runs = self.drawn = None
        self._risky = -1

    # -- construction --------------------------------------------------------
    @classmethod
    def start(cls, game: BaseGame) -> State:
        s = cls(game)
        n = game.setup.players
        s._init_pieces(n)
        s._init_kinds(n)
        s._init_tiles(n)
        s._init_cards(n)
        s._init_hand(n)
        s._init_gold(n)
        s._init_later(n)
        s._init_grants(n)
        s.current = s.start_player = 0
        s.turn = 1
        s.ending = s.over = False
        s.idle = 0
        s.log = []
        s._begin()
        return s

    def clone(self) -> State:
        s = State(self.game)
        self._copy_pieces(s)
        self._copy_kinds(s)
        self._copy_tiles(s)
        self._copy_cards(s)
        self._copy_hand(s)
        self._copy_gold(s)
        self._copy_turn(s)
        self._copy_later(s)
        return s

    # -- queries ---------------------------------------------------------------
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
        return sorted({m.to for m in moves if m.to is not None}, key=self.game.tables.index.get)

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
        """Play a move and return what it changed (kbdsl.engine.events); an illegal one raises
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
            if plain in legal and self.discard_applies(move, move.discard):
                code = plain  # an applicable status that is not a listed variant is the default's
        if code not in legal:
            raise IllegalMove(move, why_illegal(self, move, code))
        before = snapshot(self)
        self.apply_action(code)
        return changes(before, self)

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
            "mandatory_hexes": g.tables.names(self.mand_built),
            "pending": self._pending_json(),
            "waived": self.waived,
            "ending": self.ending,
            "over": self.over,
            "idle_turns": self.idle,
            "turn_supply": self.turn_supply,
            "settlements": [self.settlements(p) for p in range(self.players)],
            "supply": list(self.supply),
            "neutral": {k: g.tables.names(m) for k, m in self.neutral.items()},
            "stock": dict(self.stock),
            "gold": [dict(sorted(x.items())) for x in self.gold],
            "hand": list(self.hand),
            **self._kinds_json(),
            **self.grants_json(),
            **({"marks": {k: g.tables.names(m) for k, m in g.marks.items()}} if g.marks else {}),
            "tiles": [
                [{"tile": x.kind, "at": ids[x.at], "used": x.used, "new": x.new} for x in ts] for ts in self.tiles
            ],
            "taken": [g.tables.names(m) for m in self.taken],
            "location_supply": {ids[i]: v for i, v in sorted(self.loc_supply.items())},
            "dealt": {ids[i]: v for i, v in sorted(self.dealt.items())},
            "deck": list(self.deck),
            "discard": list(self.discard),
            "removed": list(self.removed),
            "reshuffles": self.reshuffles,
            "log": [g.decode(c).to_json() for c in self.log],
            **({"arranged": True} if arranged(self) else {}),  # set up by hand: its pieces come from no move
        }

    def _kinds_json(self) -> dict[str, Any]:
        """Pieces of the other player-owned kinds (their hexes are among `settlements` too), the cards
        in hand beside the played one, and the card a tile's action drew (only when a rule set has them)."""
        names = self.game.tables.names
        out: dict[str, Any] = {}
        if self.kind_own:
            out["kinds"] = {k: [names(m) for m in ms] for k, ms in self.kind_own.items()}
            out["kind_supply"] = {k: list(v) for k, v in self.kind_supply.items()}
        if self.game.several_cards:
            out["spare"] = [list(x) for x in self.spare]
        if self.game.several_cards or self.game.faces:  # (a card of several terrains is a choice too)
            out["choosing"] = self.choosing
        if self.wild is not None:
            out["wild"] = self.wild
        if self.drawn is not None:
            out["drawn"] = self.drawn
        if self.game.delayed:
            out["later"] = self.later_json()
        return out

    def _pending_json(self) -> dict[str, Any] | None:
        if not self.pending_left:
            return None
        out: dict[str, Any] = {"tile": self.game.kinds[self.pending], "left": self.pending_left}
        if self.pending_up_to:
            out["up_to"] = True  # the player may stop: any other move ends the action
        if self.hit:
            out["hit"] = [p for p in range(self.players) if (self.hit >> p) & 1]
        return out

    def view(self, player: int | None = None) -> dict[str, Any]:
        """What `player` may see (None: a spectator): other hands and the deck order are hidden."""
        data = self.to_json()
        data["hand"] = [h if p == player else None for p, h in enumerate(self.hand)]
        if "spare" in data:  # the other cards in hand are as hidden as the played one; how many is public
            data["spare"] = [x if p == player else [None] * len(x) for p, x in enumerate(data["spare"])]
        if "wild" in data and player != self.turn_player:  # the card behind the terrain played
            data["wild"] = None
        data["deck"] = len(self.deck)
        data["setup"]["seed"] = None  # the seed would let anyone recompute the deck and every hand
        data["viewer"] = player
        data["pieces"] = [{"hex": h, "kind": k, "owner": p} for h, k, p in self.pieces()]
        return data

    @classmethod
    def arrange(
        cls,
        game: BaseGame,
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
        neutral: Mapping[str, Sequence[str]] | None = None,
        gold: Sequence[Mapping[str, int]] | None = None,
        dealt: Mapping[str, str] | None = None,
        kinds: Mapping[str, Sequence[Sequence[str]]] | None = None,
        spare: Sequence[Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
        discard: Sequence[str] | None = None,
        kind_supply: Mapping[str, Sequence[int]] | None = None,
    ) -> State:
        """A position set up by hand (scenarios, puzzles, analysis) instead of by play.

        Tiles are not gained by arranged settlements; give them in `tiles`. Location hexes lose
        one tile per tile held from them unless `location_supply` says otherwise. `neutral` places
        pieces owned by nobody (kind -> hexes, taken from the shared stock), `gold` sets the gold
        won so far (per player, source -> gold), `dealt` chooses the tile lying on pool hexes.
        `kinds` places pieces of the other player-owned kinds (kind -> per player, the hexes; a
        piece covering several hexes by its centre), from each player's supply of the kind;
        `spare` gives the cards in hand beside the played one (the player to move chooses);
        `deck` puts these cards on top of the deck, the next one to be drawn first; `discard`
        moves cards from the deck onto the discard pile. `kind_supply` gives each player's pieces
        of a kind left (any number the kind's supply leaves beside those on the board); without
        it, a kind that comes with tiles (`arrives: with-tiles`) has what the tiles held give.
        """
        s = cls.start(game)
        n, t, board = s.players, game.tables, game.board
        if len(settlements) > n:
            raise SetupError(f"settlements are given for {len(settlements)} players, the game has {n}")
        own, occ = [0] * n, 0

        def take(h: str, what: str) -> int:
            """The bit of hex `h`, now occupied; refused if something stands there already."""
            nonlocal occ
            i = t.index[board.hex(h)]
            if (occ >> i) & 1:
                raise SetupError(f"hex {t.ids[i]} holds two {what}")
            occ |= 1 << i
            return 1 << i

        for p, hexes in enumerate(settlements):
            for h in hexes:
                own[p] |= take(h, "settlements")
        placed = {k: 0 for k in game.rules.neutral}
        for kind, hexes in (neutral or {}).items():
            if kind not in placed:
                raise SetupError(f"{kind!r} is not a kind of piece owned by nobody ({', '.join(placed) or 'none'})")
            for h in hexes:
                placed[kind] |= take(h, "pieces")
            s.stock[kind] -= placed[kind].bit_count()
            if s.stock[kind] < 0:
                raise SetupError(f"more {kind} pieces than the stock of {game.rules.neutral[kind]}")
        kind_own = {k: [0] * n for k in game.rules.kinds}
        for kind, per_player in (kinds or {}).items():
            if kind not in kind_own or len(per_player) > n:
                raise SetupError(f"{kind!r} is not a kind of piece of the players ({', '.join(kind_own) or 'none'})")
            for p, hexes in enumerate(per_player):
                for h in hexes:
                    cover = s.cover(kind, t.index[board.hex(h)])
                    if not cover or occ & cover:
                        raise SetupError(f"a {kind} on {h} does not fit: a hex it covers is taken or off the board")
                    kind_own[kind][p] |= cover
                    own[p] |= cover
                    occ |= cover
                    s.kind_supply[kind][p] -= kind not in game.with_tiles  # (those: _arrange_kind_supply)
                    if s.kind_supply[kind][p] < 0:
                        raise SetupError(
                            f"player {p} has more {kind} pieces than the supply of {game.rules.kinds[kind]}"
                        )
        s._set_pieces(own, placed)
        s._set_kinds(kind_own)
        s._arrange_kind_supply(kind_supply or {}, tiles or ())
        for h, name in (dealt or {}).items():
            at = t.index[board.hex(h)]
            if at not in s.dealt or game.rules.tiles.get(name) is None or game.rules.tiles[name].pool is None:
                raise SetupError(f"{t.ids[at]} is not a pool hex, or {name!r} is not a tile of a pool")
            s.dealt[at] = name
        if gold is not None:
            if len(gold) != n:
                raise SetupError(f"gold must be given for each of the {n} players")
            s.gold = [dict(x) for x in gold]
        s.supply = list(supply) if supply is not None else [game.rules.settlements - m.bit_count() for m in s.own]
        if len(s.supply) != n or min(s.supply) < 0:
            raise SetupError("supply must give a non-negative count for every player")
        if hand is not None:
            if len(hand) != n or any(h is not None and h not in game.rules.deck for h in hand):
                raise SetupError(f"hand must name a terrain card of the deck for each of the {n} players")
            pile = s.deck + [h for h in reversed(s.hand) if h is not None]  # the dealt cards go back on top
            for h in hand:  # and the given ones come out of the deck, so every card is somewhere once
                if h is not None and h not in pile:
                    raise SetupError(f"hand: the deck has no more {h!r} cards")
                if h is not None:
                    del pile[len(pile) - 1 - pile[::-1].index(h)]  # the one nearest the top
            s.deck, s.hand = pile, list(hand)
        for p, held in enumerate(tiles or ()):
            for x in held:
                at = t.index[board.hex(x["at"])]
                if x["tile"] in game.rules.given:  # from its stock; `at` is the hex of the tile that gave it
                    if not (game.tile_hexes >> at) & 1:
                        raise SetupError(f"{t.ids[at]} is not a location hex (a given tile names the hex of its giver)")
                    if s.given_left(x["tile"]) <= 0:
                        raise SetupError(f"the stock of {x['tile']!r} tiles is empty")
                    s.tiles[p].append(Tile(x["tile"], at, bool(x.get("used")), bool(x.get("new"))))
                    continue
                if t.location_of[at] != x["tile"] and not (at in s.dealt and x["tile"] in game.rules.tiles):
                    raise SetupError(f"{t.ids[at]} is not a location hex of tile {x['tile']!r}")
                s.tiles[p].append(Tile(x["tile"], at, bool(x.get("used")), bool(x.get("new"))))
                s.taken[p] |= 1 << at
                s.loc_supply[at] = max(s.loc_supply[at] - 1, 0)
                if not t.location_of[at]:
                    s.dealt.pop(at, None)
        for h, v in (location_supply or {}).items():
            at = t.index[board.hex(h)]
            if at not in s.loc_supply:
                raise SetupError(f"{t.ids[at]} is not a location hex")
            s.loc_supply[at] = v
        if not (0 <= current < n and 0 <= start < n):
            raise SetupError(f"current and start must be seats 0 to {n - 1}")
        s.current, s.start_player, s.ending = current, start, ending
        s._init_grants(n)  # an arranged position is in the players' turns, set-up phases over
        if game.grants:
            s.give_grants(current)
        if spare is not None:
            if len(spare) != n or any(c not in game.rules.deck for x in spare for c in x):
                raise SetupError(f"spare must give terrain cards of the deck for each of the {n} players")
            for x in reversed(s.spare):  # the cards dealt beside the played one go back on top
                s.deck.extend(reversed(x))
            for p, cards in enumerate(spare):
                for c in cards:
                    if c not in s.deck:
                        raise SetupError(f"spare: the deck has no more {c!r} cards")
                    del s.deck[len(s.deck) - 1 - s.deck[::-1].index(c)]
                s.spare[p] = list(cards)
        s.choosing = bool(s.spare[current]) or s.hand[current] in game.faces
        for c in reversed(deck or ()):
            if c not in s.deck:
                raise SetupError(f"deck: the deck has no more {c!r} cards")
            s.deck.remove(c)
            s.deck.append(c)  # the deck is drawn from its end
        for c in discard or ():
            if c not in s.deck[: len(s.deck) - len(deck or ())]:
                raise SetupError(f"discard: the deck has no more {c!r} cards")
            s.deck.remove(c)
            s.discard.append(c)
        s.mand_left = max((game.mandatory.count if game.mandatory else 0) - built, 0)
        s.built = built
        s.turn_supply = s.supply[current] + built
        problem = misplaced(s, in_play=False)
        if problem:
            raise SetupError(problem)
        s._settle()
        return s

    def _arrange_kind_supply(self, given: Mapping[str, Sequence[int]], tiles: Sequence[Sequence[Mapping]]) -> None:
        """arrange's supplies of the other kinds: as given, else what the tiles held give for kinds
        that come with tiles (the others: their supply less the pieces placed)."""
        g, n = self.game, self.players
        for kind, total in g.rules.kinds.items():
            placed = [len(self.centres(kind, m)) for m in self.kind_own[kind]]
            if kind in given:
                left = list(given[kind])
                pairs = zip(left, placed, strict=False)
                bad = len(left) != n or any(not _whole(v) or v < 0 or v + k > total for v, k in pairs)
                if bad:
                    raise SetupError(f"kind_supply: {kind} needs, per player, 0 to {total} less the pieces placed")
                self.kind_supply[kind] = left
            elif kind in g.with_tiles:
                if max(placed, default=0) > total:
                    raise SetupError(f"a player has more {kind} pieces than the supply of {total}")
                for p in range(n):
                    held = [g.gives.get(x["tile"]) for x in (tiles[p] if p < len(tiles) else ())]
                    got = sum(x[0] for x in held if x is not None and x[1] == kind)
                    self.kind_supply[kind][p] = max(0, min(got, total) - placed[p])

    @classmethod
    def from_json(cls, data: Mapping[str, Any], game: BaseGame) -> State:
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
    def _from_json(cls, data: Mapping[str, Any], game: BaseGame) -> State:
        t = game.tables
        s = cls(game)
        idx = lambda h: t.index[game.board.hex(h)]  # noqa: E731
        neutral = {k: game.board.mask(data["neutral"].get(k, [])) for k in game.rules.neutral}
        s._set_pieces([game.board.mask(hs) for hs in data["settlements"]], neutral)
        kinds = data.get("kinds", {})
        s._set_kinds({k: [game.board.mask(hs) for hs in kinds[k]] for k in game.rules.kinds if k in kinds})
        supply = data.get("kind_supply", {})
        s.kind_supply = {k: list(supply.get(k, [v] * game.setup.players)) for k, v in game.rules.kinds.items()}
        s.spare = [list(x) for x in data.get("spare", [[] for _ in range(game.setup.players)])]
        s.choosing = bool(data.get("choosing", False))
        s.wild = data.get("wild")
        s.drawn = data.get("drawn")
        s.stock = {k: data["stock"][k] for k in game.rules.neutral}
        s.gold = [dict(x) for x in data["gold"]]
        s.dealt = {idx(h): v for h, v in data["dealt"].items()}
        s.supply = list(data["supply"])
        s.hand = list(data["hand"])
        s.tiles = [[Tile(x["tile"], idx(x["at"]), x["used"], x["new"]) for x in ts] for ts in data["tiles"]]
        tile_hexes = game.tile_hexes
        for x in (x for ts in s.tiles for x in ts):
            d = game.rules.tiles.get(x.kind)
            if d is not None and d.given is not None:
                here = (tile_hexes >> x.at) & 1  # a given tile: the hex of the tile whose taking gave it
            else:
                here = t.location_of[x.at] == x.kind if d is None or d.pool is None else (tile_hexes >> x.at) & 1
            if not here:
                raise ValueError(f"tiles: {t.ids[x.at]} is not a hex of a tile {x.kind!r}")
        s.taken = [game.board.mask(hs) for hs in data["taken"]]
        s.loc_supply = dict.fromkeys(bit_list(tile_hexes), 0) | {idx(h): v for h, v in data["location_supply"].items()}
        s.deck, s.discard, s.removed = list(data["deck"]), list(data["discard"]), list(data["removed"])
        s.reshuffles, s.deck_seed = data["reshuffles"], game.setup.seed
        s.turn, s.current, s.start_player = data["turn"], data["current"], data["start"]
        s.mand_left, s.built = data["mandatory_left"], data["built"]
        s.mand_built = game.board.mask(data["mandatory_hexes"])
        pending = data.get("pending")
        s.pending = game.kind_index[pending["tile"]] if pending else 0
        s.pending_left = pending["left"] if pending else 0
        s.pending_up_to = bool(pending.get("up_to")) if pending else False
        s.hit = sum(1 << p for p in pending.get("hit", ())) if pending else 0
        s.waived = bool(data["waived"])
        s.ending, s.over = data["ending"], data["over"]
        s.idle, s.turn_supply = data["idle_turns"], data["turn_supply"]
        s.log = [game.to_code(Move.from_json(m)) for m in data["log"]]
        s.later_from_json(data.get("later"), game.setup.players)
        s._init_grants(game.setup.players)
        if game.grants:
            s.grants_from_json(data)
        return s

    def key(self) -> tuple:
        """A value equal for equal states (used to compare round-trips and replays)."""
        return (
            tuple(self.own),
            tuple(self.supply),
            tuple(sorted(self.neutral.items())),
            tuple(sorted(self.stock.items())),
            tuple(tuple(sorted(x.items())) for x in self.gold),
            tuple(sorted(self.dealt.items())),
            tuple(self.hand),
            tuple(tuple(x) for x in self.spare),
            self.choosing,
            self.wild,
            self.drawn,
            tuple(sorted((k, tuple(v)) for k, v in self.kind_own.items())),
            tuple(sorted((k, tuple(v)) for k, v in self.kind_supply.items())),
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
            self.mand_built,
            self.pending,
            self.pending_left,
            self.pending_up_to and bool(self.pending_left),  # meaningless once the action is over
            self.hit,
            self.waived,
            self.ending,
            self.over,
            self.idle,
            self.turn_supply,
            tuple(self.log),
            tuple(self.later),
            self.phase,
            self.phase_turns,
            tuple(tuple(sorted(x.items())) for x in self.grant_left),
            self.reacting,
            self.react_queue,
            self.react_saved,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.game is other.game and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]


def _impossible(s: State, data: Mapping[str, Any]) -> str | None:
    """The first invariant the engine relies on that a state rebuilt from JSON breaks, naming the
    field (None: none). These hold in every position that play reaches."""
    g = s.game
    rules, t, n = g.rules, g.tables, g.setup.players
    problem = _impossible_kinds(s)
    if problem:
        return problem
    if {len(x) for x in (s.own, s.supply, s.hand, s.tiles, s.taken, s.gold)} != {n}:
        return f"settlements, supply, hand, tiles, taken and gold must each have one entry per player ({n})"
    if sum(m.bit_count() for m in [*s.own, *s.neutral.values()]) != s.occ.bit_count():
        return "settlements and neutral: a hex holds two pieces"
    whole = {"turn": 1, "current": 0, "start": 0, "mandatory_left": 0, "built": 0, "idle_turns": 0}
    whole |= {"turn_supply": 0, "reshuffles": 0}
    for key, lo in whole.items():
        if not _whole(data[key]) or data[key] < lo:
            return f"{key} must be a whole number of at least {lo}, not {data[key]!r}"
    if not (s.current < n and s.start_player < n):
        return f"current and start must be seats 0 to {n - 1}"
    if not all(isinstance(data[k], bool) for k in ("ending", "over", "waived")):
        return "ending, over and waived must be true or false"
    if any(not _whole(v) or not 0 <= v <= rules.settlements for v in s.supply):
        return f"supply must be whole numbers from 0 to {rules.settlements}"
    for kind, stock in rules.neutral.items():
        left = s.stock[kind]
        if not _whole(left) or left < 0 or left + s.neutral[kind].bit_count() != stock:
            return f"stock: {kind} on the board and in the stock must add up to {stock}"
    if any(not isinstance(k, str) or not _whole(v) or v < 0 for won in s.gold for k, v in won.items()):
        return "gold must map sources to whole numbers of at least 0"
    tp = s.turn_player  # whose card `wild` is (in a reaction, not the player to move)
    whose = _whole(tp) and 0 <= tp < n
    # The terrain a card is played as stands in the hand: one of a card of several choices' terrains,
    # or, for identical cards played as any terrain, any terrain a card of the deck shows (say, one
    # found only on a card of several choices), which need not be a card of the deck itself.
    played_as = s.hand[tp] if s.wild is not None and whose else None
    if any(h is not None and h not in rules.deck and h != played_as for h in s.hand):
        return f"hand must hold terrain cards of the deck ({', '.join(rules.deck)}) or nothing"
    if s.wild is not None and (
        s.wild not in rules.deck
        or s.choosing
        or not whose
        or s.hand[tp] not in (g.faces[s.wild] if s.wild in g.faces else rules.deck_terrains())
    ):
        return "wild must be a terrain card of the deck, played as the terrain in the hand of the turn's player"
    spare = [c for x in s.spare for c in x]
    held = [s.played_card(p) for p in range(n)]
    cards = sorted([c for c in held if c is not None] + spare + s.deck + s.discard + s.removed, key=str)
    if cards != sorted((c for c, k in rules.deck.items() for _ in range(k)), key=str):
        return "hand, deck, discard and removed together must be the rule set's deck, each card once"
    for p in range(n):
        for x in s.tiles[p]:
            if not (isinstance(x.used, bool) and isinstance(x.new, bool)):
                return "tiles: used and new must be true or false"
            if not (s.taken[p] >> x.at) & 1:
                return f"tiles: player {p} holds a tile from {t.ids[x.at]} but never took one there"
            touched = t.nbr_mask[x.at] & s.own[p]
            if x.kind in g.lose_now and not touched or x.kind in g.lose_later and not touched and p != s.current:
                return f"tiles: player {p} holds a tile from {t.ids[x.at]} but no settlement of theirs touches it"
        if s.taken[p] & ~g.tile_hexes:
            return f"taken: player {p} took tiles from hexes that are not location hexes"
    for at, v in s.loc_supply.items():
        supply = rules.tiles[t.location_of[at]].supply if t.location_of[at] else int(at in s.dealt)
        if not _whole(v) or not 0 <= v <= supply:
            return f"location_supply: {t.ids[at]} must hold 0 to {supply} tiles, not {v!r}"
    for at, kind in s.dealt.items():
        if not (g.pool_hexes >> at) & 1 or rules.tiles.get(kind) is None or rules.tiles[kind].pool is None:
            return f"dealt: {t.ids[at]} is not a pool hex, or {kind!r} is not a tile of a pool"
    if s.pending_left and (not _whole(s.pending_left) or s.pending_left < 0 or s.pending < 2):
        return "pending must name a tile and a whole number of steps left"
    return impossible_play(s, data)


def _impossible_kinds(s: State) -> str | None:
    """The same for pieces of the other player-owned kinds and the cards in hand beside the played one."""
    g, n = s.game, s.game.setup.players
    if len(s.spare) != n or any(c not in g.rules.deck for x in s.spare for c in x):
        return f"spare must hold terrain cards of the deck for each of the {n} players"
    for kind, masks in s.kind_own.items():
        supply = s.kind_supply[kind]
        if len(masks) != n or len(supply) != n:
            return f"kinds and kind_supply: {kind} must have one entry per player ({n})"
        for p in range(n):
            centres = s.centres(kind, masks[p])
            if masks[p] & ~s.own[p] or sum(s.cover(kind, i) for i in centres) != masks[p]:
                return f"kinds: player {p}'s {kind} pieces must be among their settlements, each whole"
            if not _whole(supply[p]) or supply[p] < 0 or supply[p] + len(centres) > g.rules.kinds[kind]:
                total = g.rules.kinds[kind]
                return f"kind_supply: player {p}'s {kind} pieces on the board and in the supply make at most {total}"
    return None


def _whole(value: Any) -> bool:
    """An integer that is not a truth value (JSON's 2.0 and true are not whole numbers of a save)."""
    return isinstance(value, int) and not isinstance(value, bool)
