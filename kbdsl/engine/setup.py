"""The fixed part of a game: a rule set bound to a setup, its board and the action codes of moves.

Randomness (setup draws, tile deals and deck shuffles) comes from separate streams of the game's
seed (kbdsl.seeds), so the same seed and moves always give the same game. `kbdsl.game.Game` adds
the first state.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kbdsl.bitset import bit_list
from kbdsl.caches import ByOwner
from kbdsl.deckops import deck_without, removals
from kbdsl.engine.placements import mark
from kbdsl.engine.phases import PHASES, REACT, TURNS
from kbdsl.errors import IllegalMove, SetupError
from kbdsl.expr import Ctx, hex_bound
from kbdsl.lang import ast
from kbdsl.moves import DISCARDS, END, END_TURN, Move
from kbdsl.position import Board, Layout, resolve_options
from kbdsl.ruleset import CompiledAction, RuleSet
from kbdsl.seeds import new_seed, shuffle, stream
from kbdsl.suggest import did_you_mean
from kbdsl.wording import counted


@dataclass(frozen=True)
class Setup:
    """Everything that fixes a game before the first move."""

    players: int
    layout: Layout
    cards: tuple[str, ...]
    seed: int = 0
    options: Mapping[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("players", "seed"):  # 2.0 players or seed 7.0 would make another game
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise SetupError(f"{name} must be a whole number, not {value!r}")

    def to_json(self) -> dict:
        return {
            "players": self.players,
            "sections": self.layout.to_json(),
            "cards": list(self.cards),
            "seed": self.seed,
            "options": dict(self.options),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], rules: RuleSet) -> Setup:
        """The setup of a saved game (a whole game: see `complete`)."""
        return cls(
            data["players"],
            Layout.of(rules, data["sections"]),
            tuple(data["cards"]),
            data.get("seed", 0),
            dict(data.get("options", {})),
        ).complete(rules)

    def complete(self, rules: RuleSet) -> Setup:
        """This setup, if a whole game of `rules` can be played from it: as many Kingdom Builder
        cards as the rule set deals, and every board it plays on. (Scenarios set up positions,
        not games, and may choose any cards.)"""
        other = [c for c in self.cards if c in rules.cards and rules.cards[c].deck is not None]
        dealt = len(self.cards) - len(other)  # cards of other decks are dealt by sections
        if dealt != rules.cards_in_play:
            raise SetupError(
                f"a game of {rules.title} uses {counted(rules.cards_in_play, 'Kingdom Builder card')}, not {dealt}"
            )
        placed = {board for board, sections in self.layout.boards if sections}
        for b in rules.boards:
            if b.name not in placed and len(rules.sections_for(b.name)) >= b.grid[0] * b.grid[1]:
                raise SetupError(f"{rules.title} is played with board {b.name!r}, and the setup places none of it")
        return self


class BaseGame:
    """A rule set bound to a setup: the board, its tables and the compiled rules."""

    # Slots, as for State: more attributes than a dict's shared keys hold, read on every move.
    __slots__ = (
        *("rules", "setup", "options", "board", "tables", "tile_names", "kinds", "kind_index", "code_base"),
        "kind_rows",
        *("tile_plan", "mandatory", "mandatory_tables", "may_stay", "end_latched", "_standable", "in_play"),
        *("lose_now", "lose_later", "expiring", "returning", "single_use", "wait_a_turn", "on_gain", "any_time"),
        *(
            "pool_hexes",
            "tile_hexes",
            "tile_near",
            "on_build",
            "on_mandatory",
            "mandatory_lean",
            "no_hex",
            "uses_card",
            "card_actions",
        ),
        *("aura_kinds", "footprints", "fixed_kinds", "own_tile_kinds", "unmoved_kinds", "past_auras", "unpaid_kinds"),
        *("hand_size", "draw_at_start", "keep_unplayed", "wild", "hand_tiles", "keep_tiles", "wild_tiles"),
        *("several_cards", "plain_hand", "deck_cards", "tile_supply", "pool_tiles"),
        *("picks", "set_aside", "faces", "face_count", "leave_choice", "forced", "given", "given_by", "delayed"),
        *("grants", "grants_in", "grants_plain", "turn_grants", "gives", "with_tiles", "marks", "reactions", "instead"),
    )

    def __init__(self, rules: RuleSet, setup: Setup):
        lo, hi = rules.players
        if not lo <= setup.players <= hi:
            raise SetupError(f"{rules.title} is for {lo} to {hi} players, not {setup.players}")
        for c in setup.cards:
            if c not in rules.cards:
                hint = did_you_mean(c, rules.cards)
                raise SetupError(f"unknown card {c!r} (the rule set has {', '.join(rules.cards)}){hint}")
        if len(set(setup.cards)) != len(setup.cards):
            raise SetupError("each Kingdom Builder card may be used once")
        self.rules = rules
        self.setup = setup
        self.options = resolve_options(rules, setup.options)
        facts = rule_facts(rules, self.options)
        for name, value in facts.shared.items():  # (never changed by a game: shared by all of the rule set's)
            setattr(self, name, value)
        self.board = Board.of(rules, setup.layout, self.options)
        self.marks: dict[str, int] = {}  # marker terrain -> the hexes put at set-up (kbdsl.engine.placements)
        self.tables = self.board.tables
        if rules.placements:
            self.marks, self.tables = mark(rules, self.board, setup.seed, self.options)
        step = self.encode(1)  # (codes are linear in the kind)
        self.code_base = [k * step for k in range(len(self.kinds))]  # the code of kind k, hex 0
        # per tile kind, its actions as (name, action, code base, by_card) for the move generator:
        # by_card is None but for a build whose target is a table per board (it caches its targets by card)
        self.tile_plan = {
            tile: [(name, a, k * step, {} if by_card else None) for name, a, k, by_card in entries]
            for tile, entries in facts.plan.items()
        }
        # the tiles that may be held in this game (the board's: a location hex, a pool; a stock's, a grant's)
        self.in_play = frozenset(n for n in rules.tiles if n in rules.grants or n in rules.given or self._on_board(n))
        # ... their lifecycles (a kind no one can hold plays no part in the game's sets; the compiled
        # playout is the rule set's, `whole`: see kbdsl.engine.compiled)
        (
            self.lose_now,  # tile kinds lost the moment their hex is left
            self.lose_later,  # ... at the end of the turn instead
            self.expiring,
            self.returning,
            self.single_use,
            self.wait_a_turn,
            self.on_gain,  # their action happens when they are taken
            self.any_time,  # usable between the mandatory builds too
            self.forced,  # a turn may not end while one has a legal use
        ) = (kinds & self.in_play for kinds in facts.life)
        t = self.tables
        self.pool_hexes = 0
        for pool in rules.pools.values():
            self.pool_hexes |= t.terrain.get(pool.on, 0)
        self.tile_hexes = t.location | self.pool_hexes  # hexes a piece next to takes a tile from
        self.tile_near = [m & self.tile_hexes for m in t.nbr_mask]  # per hex, the tile hexes next to it
        self.tile_supply = {i: rules.tiles[t.location_of[i]].supply for i in bit_list(t.location)}  # at the start
        # per pool: its hexes in board order, and its tiles in name order (`deal` shuffles them onto the
        # hexes); none where no pool has a hex on this board (nothing to deal: no stream to seed)
        self.pool_tiles = [
            (
                bit_list(t.terrain.get(pool.on, 0)),
                sorted(name for name, d in rules.tiles.items() if d.pool == pool.name for _ in range(d.copies)),
            )
            for pool in rules.pools.values()
            if self.pool_hexes
        ]
        self.picks = removals(rules, setup.cards, setup.seed)  # card -> the terrain it took out of the deck
        self.set_aside: list[str] = []  # ... and the cards that leave the game at set-up (kbdsl.deckops)
        if self.picks:
            self.deck_cards, self.set_aside = deck_without(rules, self.picks)
        # tiles given from a stock (kbdsl.engine.given) -> when; not those whose condition never holds in
        # this game (_may_hold), at which Holdings.gain would look at every tile taken
        self.given = {k: when for k, when in rules.given.items() if self._may_hold(when)}
        # ... and the tile kinds whose taking may make one of those conditions true where they read
        # only the tiles held, of kinds none given, and no given tile ever leaves a hand (a condition
        # true at an earlier taking was met then, or the stock was empty, and stays so): Holdings.gain
        # looks only at those takings; None: at every one
        reads = [rules.held_reads.get(when) for when in self.given.values()]
        by = None if None in reads else frozenset().union(*reads)
        leaving = self.lose_now | self.lose_later | self.expiring | self.single_use | self.on_gain
        kept = by is not None and by.isdisjoint(rules.given) and leaving.isdisjoint(self.given)
        self.given_by = by if kept else None
        scored = [*setup.cards, *rules.scorings]
        self.on_build = [(c, fn) for c in scored for ev, fn in rules.triggers.get(c, ()) if ev == "build"]
        self.on_mandatory = [(c, fn) for c in scored for ev, fn in rules.triggers.get(c, ()) if ev == "mandatory"]
        # grant -> (phase, to, times, once) (kbdsl.engine.grants)
        self.grants: dict[str, tuple[int, Any, Any, bool]] = {}
        for name, (to, times) in rules.grants.items():
            phase, once = facts.grant_use[name]
            if (to is not None and not self._may_hold(to)) or (phase != TURNS and not self._can_act(name)):
                continue  # of no use to anybody in this game: its phase or reaction is never offered (the
                # turns' grants stay: the compiled playout lists them in line, the same for every board)
            self.grants[name] = (phase, to, times, once)
        self.reactions = tuple(name for name, (phase, *_) in self.grants.items() if phase == REACT)
        # phase -> the grants of that phase, in declaration order (Grants.granted)
        self.grants_in = {ph: tuple(n for n, (at, *_) in self.grants.items() if at == ph) for ph in PHASES.values()}
        # phase -> its grants' uses where every one is once a turn to everyone (Grants.give_grants' one update)
        self.grants_plain = {
            ph: dict.fromkeys(names, 1) if all(self.grants[n][1:] == (None, None, False) for n in names) else None
            for ph, names in self.grants_in.items()
        }
        # the grants of the players' turns where none is used instead of the mandatory action (usable_tiles)
        self.turn_grants = () if self.instead else self.grants_in[TURNS]
        # the mandatory action's board targets by card (Targets.board_target), when its target is a table
        self.mandatory_tables: dict[str | None, int] | None = {} if facts.plain_mandatory else None
        self._standable: dict[str, int] = {}  # piece kind -> standable(kind), computed when first asked

    @classmethod
    def new(
        cls,
        rules: RuleSet,
        players: int = 4,
        sections: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        cards: Sequence[str] | None = None,
        seed: int | None = None,
        options: Mapping[str, bool] | None = None,
        preset: str | None = None,
    ):
        """Make a game; sections and cards not given are drawn from the seed (or taken from a preset).

        Without a seed the game gets an unpredictable one (kbdsl.seeds.new_seed)."""
        if seed is None:
            seed = new_seed()
        rng = stream(seed, "setup")
        if sections is not None and not isinstance(sections, Mapping):
            sections = {rules.primary_board.name: list(sections)}  # a plain list is the primary board
        if preset is not None:
            if preset not in rules.presets:
                known = ", ".join(rules.presets) or "none"
                raise SetupError(
                    f"unknown preset {preset!r} (the rule set has {known}){did_you_mean(preset, rules.presets)}"
                )
            p = rules.presets[preset]
            sections = dict(p.get("sections", {})) | dict(sections or {})
            cards = cards if cards is not None else p.get("cards")
        spec: dict[str, list[str]] = {}
        given = sections or {}
        boards = [b.name for b in rules.boards]
        for name in given:
            if name not in boards:
                hint = did_you_mean(name, boards)
                raise SetupError(f"unknown board {name!r} (the rule set has {', '.join(boards)}){hint}")
        for b in rules.boards:
            if b.name in given:
                spec[b.name] = list(given[b.name])
                continue
            pool = rules.sections_for(b.name)
            need = b.grid[0] * b.grid[1]
            if len(pool) < need:
                if b is rules.primary_board:
                    raise SetupError(f"board {b.name!r} needs {need} sections, the rule set has {len(pool)}")
                continue
            picked = rng.sample(sorted(pool), need)
            spec[b.name] = [f"{s}@180" if b.turnable and rng.random() < 0.5 else s for s in picked]
        if cards is None:
            cards = rng.sample(sorted(c for c, d in rules.cards.items() if d.deck is None), rules.cards_in_play)
        layout = Layout.of(rules, spec)
        cards = list(cards) + _dealt_by_sections(rules, layout, cards, rng)
        setup = Setup(players, layout, tuple(cards), seed, dict(options or {}))
        return cls(rules, setup.complete(rules))

    def deal(self) -> dict[int, str]:
        """Tiles of each pool, shuffled by the seed, one face up on each of the pool's hexes in board
        order (a board with pools: seeding the stream costs as much as a tenth of a new game)."""
        rng, out = stream(self.setup.seed, "deal"), {}
        for hexes, tiles in self.pool_tiles:
            tiles = list(tiles)
            shuffle(rng, tiles)
            out.update(zip(hexes, tiles, strict=False))
        return out

    # -- action codes --------------------------------------------------------
    def standable(self, kind: str | None = None, in_play: bool = False) -> int:
        """Hexes a piece of `kind` (None: the kind `build` places) can ever stand on in this game:
        the union of what every action that builds, places or moves it allows, by the terrains and
        board flags its target names (kbdsl.expr.hex_bound). Invariant checks and front ends use it.
        `in_play`: only the actions of tiles this board can give (a location hex, a pool's terrain), of
        tiles given from a stock and of the actions the board grants."""
        r = self.rules
        kind = kind or r.piece_kind
        key = f"{kind} in play" if in_play else kind
        if key in self._standable:
            return self._standable[key]
        moved_by_any = kind not in self.fixed_kinds and kind not in self.own_tile_kinds
        actions = [*r.mandatory[:1], *r.actions.values()]
        if in_play:
            actions = [*r.mandatory[:1], *(a for n, a in r.actions.items() if r.action_tile[n] in self.in_play)]
        out = 0
        for a in actions:
            if a.target is None or a.kind not in ("build", "place", "move"):
                continue
            piece = a.piece or (r.piece_kind if a.kind == "build" else None)
            if piece == kind or (a.kind == "move" and piece is None and moved_by_any):
                out |= hex_bound(a.decl.target, self.tables, r.deck_terrains(), r.defines)
        self._standable[key] = out
        return out

    def _may_hold(self, when) -> bool:
        """Whether a condition of a tile given from a stock or of a grant's `to` may hold in this game:
        it reads more than the tiles held, or tiles of a kind that may be held here (the board's: a
        location hex, a pool; a stock's, a grant's), or it holds with none of them held (its value is
        then a constant, found here once)."""
        reads = self.rules.held_reads.get(when)
        if reads is None or not self.in_play.isdisjoint(reads):
            return True
        c = Ctx(self.tables, [0] * self.setup.players, 0, self.options)  # (no tiles held: c.tiles is empty)
        return bool(when(c))

    def _can_act(self, grant: str) -> bool:
        """Whether a grant may do something on this board: one of its actions acts on no hex or on
        hexes its target's bound (kbdsl.expr.hex_bound) leaves some of, and its uses a turn are not
        the count of hexes bounded to none."""
        r, t = self.rules, self.tables
        bound = lambda node: hex_bound(node, t, r.deck_terrains(), r.defines) & t.all  # noqa: E731
        uses = r.tiles[grant].grant.uses
        if isinstance(uses, ast.Call) and uses.name == "count" and len(uses.args) == 1 and not bound(uses.args[0]):
            return False
        for a in map(r.actions.__getitem__, r.entries.get(grant, ())):
            if a.kind not in ("build", "place", "move") or a.decl.target is None or bound(a.decl.target):
                return True
        return False

    def _on_board(self, tile: str) -> bool:
        """Whether this board can give the tile: a location hex of it, or hexes of its pool's terrain."""
        d, t = self.rules.tiles[tile], self.tables
        pool = self.rules.pools.get(d.pool) if d.pool else None
        return bool(t.terrain.get(pool.on, 0) if pool is not None else t.locations.get(tile, 0))

    def encode(self, kind: int, to: int = 0, frm: int = 0, discard: int = 0) -> int:
        n = self.tables.n
        return ((kind * 4 + discard) * n + frm) * n + to

    def code_kind(self, code: int) -> int:
        """The kind of an action code, `split`'s first part by one division (codes are linear in it)."""
        return code // self.code_base[1]

    def split(self, code: int) -> tuple[int, int, int, int]:
        """(kind, discard, from, to) of an action code: the inverse of `encode`."""
        n = self.tables.n
        rest, to = divmod(code, n)
        rest, frm = divmod(rest, n)
        kind, disc = divmod(rest, 4)
        return kind, disc, frm, to

    def decode(self, code: int) -> Move:
        kind, disc, frm, to = self.split(code)
        name = self.kinds[kind]
        if kind == END_TURN:
            return END
        ids = self.tables.ids
        if name in self.no_hex:
            return Move(name)
        is_move = kind >= 2 and self.rules.actions[name].kind == "move"
        return Move(name, ids[to], ids[frm] if is_move else None, DISCARDS[disc])

    def to_code(self, move: Move) -> int:
        """The action code of a move (raises IllegalMove for unknown names or hexes)."""
        kind = self.kind_index.get(move.do)
        if kind is None:
            raise IllegalMove(move, f"unknown action {move.do!r} (build, end or a tile: {', '.join(self.tile_names)})")
        if kind == END_TURN or move.do in self.no_hex:
            if move.to is not None or move.frm is not None or move.discard is not None:
                raise IllegalMove(move, f"{move.do} takes no hex and no discard")
            return self.encode(kind)
        if move.discard not in DISCARDS:
            raise IllegalMove(move, f"discard must be one of used, unused, new, not {move.discard!r}")
        to = self._hex(move, move.to, "target")
        is_move = kind >= 2 and self.rules.actions[move.do].kind == "move"
        if is_move:
            frm = self._hex(move, move.frm, "settlement to move")
        elif move.frm is not None:
            raise IllegalMove(move, f"{move.do} takes one hex, no 'from' hex")
        else:
            frm = 0
        return self.encode(kind, to, frm, DISCARDS.index(move.discard))

    def _hex(self, move: Move, text: str | None, what: str) -> int:
        if text is None:
            raise IllegalMove(move, f"the {what} hex is missing")
        try:
            return self.tables.index[self.board.hex(text)]
        except ValueError as e:
            raise IllegalMove(move, str(e)) from None


class Life(NamedTuple):
    """Tile kinds by what their lifecycles say (BaseGame's sets of these names)."""

    lose_now: frozenset[str]
    lose_later: frozenset[str]
    expiring: frozenset[str]
    returning: frozenset[str]
    single_use: frozenset[str]
    wait_a_turn: frozenset[str]
    on_gain: frozenset[str]
    any_time: frozenset[str]
    forced: frozenset[str]


def lifecycles(rules: RuleSet, options: Mapping[str, bool]) -> Life:
    """The rule set's tile kinds by lifecycle, with these options (a game keeps those of its tiles in
    play), found once per rule set and options (_LIFE)."""
    key = tuple(options.items())
    seen = _LIFE.get(rules, key)
    if seen is not None:
        return seen
    life = {name: rules.tile_lifecycle[name].resolve(options) for name in rules.tiles}
    kinds = lambda key, value: frozenset(k for k, v in life.items() if v[key] == value)  # noqa: E731
    touching = kinds("keep", "while-touching")
    found = Life(
        touching & kinds("check", "at-once"),
        touching & kinds("check", "end-of-turn"),
        kinds("keep", "until-end-of-next-turn"),
        kinds("lost", "back-to-hex"),
        kinds("use", "once"),
        kinds("first-use", "next-turn"),
        kinds("first-use", "when-gained"),
        kinds("window", "any-time"),
        kinds("forced", "if-legal"),
    )
    return _LIFE.put(rules, key, found)


#: (rules, options) -> their lifecycles.
_LIFE: ByOwner[Life] = ByOwner(1024)


class Facts(NamedTuple):
    """What a rule set with these options decides for every game of it, whatever the board: found
    once (rule_facts) rather than at each Game.new, which a simulation calls once a game."""

    shared: dict[str, Any]  # BaseGame attributes, the same objects in every game (none changes them)
    life: Life  # the rule set's tile kinds by lifecycle (a game keeps those in play)
    plan: dict[str, tuple[tuple[str, CompiledAction, int, bool], ...]]  # tile -> (name, action, kind, by card)
    grant_use: dict[str, tuple[int, bool]]  # grant -> (phase, once)
    plain_mandatory: bool  # the mandatory action's target reads at most the card (a table per board)


def rule_facts(rules: RuleSet, options: Mapping[str, bool]) -> Facts:
    """The parts of BaseGame that the rule set and options alone decide, once per both (_FACTS)."""
    key = tuple(options.items())
    seen = _FACTS.get(rules, key)
    if seen is not None:
        return seen
    f: dict[str, Any] = {"tile_names": list(rules.tiles)}
    f["kinds"] = kinds = ["build", "end"] + list(rules.actions)  # a tile's name, or `tile.verb` for its parts
    f["kind_index"] = kind_index = {k: i for i, k in enumerate(kinds)}
    # per kind of a tile's action, what applying it looks up: (name, action, its tile, the action due after)
    f["kind_rows"] = [None, None] + [
        (name, a, rules.action_tile[name], rules.follow.get(name)) for name, a in rules.actions.items()
    ]
    plan = {
        tile: tuple(
            (name, a, kind_index[name], a.kind == "build" and a.reads <= {"card"})
            for name in rules.entries.get(tile, ())
            for a in (rules.actions[name],)
        )
        for tile in rules.tiles
    }
    turn = rules.turn.resolve(options)
    f["may_stay"] = turn["moves"] == "may-stay"
    f["end_latched"] = turn["end"] == "latched"  # RULINGS 28: nothing cancels a triggered end
    f["deck_cards"] = [terrain for terrain, count in rules.deck.items() for _ in range(count)]  # unshuffled
    # terrain cards of several choices (kbdsl.engine.hand): card -> its terrains, (card, terrain) -> count
    f["faces"] = {card: tuple(t for t, _ in fs) for card, fs in rules.faces.items()}
    f["face_count"] = {(card, t): n for card, fs in rules.faces.items() for t, n in fs if n is not None}
    f["leave_choice"] = frozenset(
        card for card, st in rules.face_settings.items() if st.resolve(options)["tile-use"] == "leaves-choice"
    )
    f["no_hex"] = no_hex = frozenset(
        k for k, a in rules.actions.items() if a.kind in ("gold", "ignore", "draw", "later")
    )
    f["delayed"] = any(a.kind == "later" for a in rules.actions.values())  # next-turn modifiers (engine.later)
    kind_life = {k: v.resolve(options) for k, v in rules.kind_settings.items()}

    def by_kind(key: str, value: str) -> frozenset[str]:
        return frozenset(k for k, v in kind_life.items() if v[key] == value)

    f["aura_kinds"] = by_kind("aura", "blocks-next-to")
    f["footprints"] = by_kind("footprint", "hex-and-neighbours")
    f["fixed_kinds"] = by_kind("movable", "no")
    f["own_tile_kinds"] = by_kind("movable", "by-own-tile")
    f["unmoved_kinds"] = tuple(f["fixed_kinds"] | f["own_tile_kinds"])  # what a move naming no kind never lifts
    f["past_auras"] = by_kind("placement", "past-auras")
    f["unpaid_kinds"] = by_kind("placement-pays", "no")
    f["with_tiles"] = by_kind("arrives", "with-tiles")
    f["gives"] = {name: t.gives for name, t in rules.tiles.items() if t.gives is not None}  # tile -> (n, kind)
    grant_use = {}
    for name in rules.grants:
        st = rules.grant_settings[name].resolve(options)
        grant_use[name] = (PHASES[st["phase"]], st["use"] == "once")
    f["instead"] = frozenset(rules.instead)  # grants used instead of the mandatory action (engine.grants)
    # Card zones (kbdsl.engine.hand): the turn's hand, and what held tiles restate for their holder.
    f["hand_size"] = hand_size = int(turn["hand"])
    f["draw_at_start"] = turn["draw"] == "start-of-turn"
    f["keep_unplayed"] = turn["discard"] == "played"
    f["wild"] = turn["identical"] == "any-terrain"
    cards = {name: c.resolve(options) for name, c in rules.tile_cards.items()}
    f["hand_tiles"] = {name: int(c["hand"]) for name, c in cards.items() if "hand" in c}  # tile -> hand size
    f["keep_tiles"] = {name: c["discard"] == "played" for name, c in cards.items() if "discard" in c}
    f["wild_tiles"] = frozenset(name for name, c in cards.items() if c.get("identical") == "any-terrain")
    f["several_cards"] = several = hand_size > 1 or any(n > 1 for n in f["hand_tiles"].values())
    f["plain_hand"] = not several and not f["draw_at_start"]  # one card, drawn at the end
    f["mandatory"] = mandatory = rules.mandatory[0] if rules.mandatory else None
    f["uses_card"] = uses_card = {name: a.reads_card for name, a in rules.actions.items()}
    if mandatory is not None:
        uses_card["build"] = mandatory.reads_card
    plain = mandatory is not None and mandatory.reads <= {"card"}
    life = lifecycles(rules, options)
    # whether the mandatory action's builds may be taken in one loop (kbdsl.engine.compiled): tiles
    # acting when gained only with actions of no hex (the loop stops for them)
    f["mandatory_lean"] = plain and mandatory.adjacent and life.on_gain <= no_hex  # (the rule set's)
    cardy = (*rules.actions.values(), *rules.mandatory[:1])
    f["card_actions"] = frozenset(id(a) for a in cardy if a.reads_card)  # actions a chosen card locks
    return _FACTS.put(rules, key, Facts(f, life, plan, grant_use, plain))


#: (rules, options) -> what they decide for every game (rule_facts).
_FACTS: ByOwner[Facts] = ByOwner(1024)


def _dealt_by_sections(rules: RuleSet, layout: Layout, given: Sequence[str], rng: random.Random) -> list[str]:
    """One distinct random card of its deck for each section in play that deals one (task cards),
    for each deck none of whose cards was given."""
    decks = {d for d, names in rules.decks.items() if not set(names) & set(given)}
    wanted: dict[str, int] = {}
    for _, placed in layout.boards:
        for s in placed:
            sec = rules.sections.get(s.name)  # an unknown name is refused when the board is assembled
            deck = sec.deals if sec is not None else None
            if deck in decks:
                wanted[deck] = wanted.get(deck, 0) + 1
    out: list[str] = []
    for deck, n in sorted(wanted.items()):
        out += rng.sample(sorted(rules.decks[deck]), min(n, len(rules.decks[deck])))
    return out
