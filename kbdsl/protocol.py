"""A JSON protocol for front ends in any language: one request object in, one response out.

`kbdsl serve` speaks it as JSON lines over stdin/stdout; `Server.handle` is the same thing
for Python callers. Requests are data: the server reads no file except rule folders (a
shipped name, or a folder path unless paths are refused), saves travel as JSON values, and
every failure is an error response with a code, never a traceback. The same requests
always give the same responses: game ids count up, bots are seeded from the position.
The wire format is documented in docs/protocol.md and schemas/protocol.schema.json.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from typing import Any, BinaryIO, TextIO

import jsonschema

from kbdsl import __version__
from kbdsl import undo as undoing
from kbdsl.bots import BOTS, make_bot
from kbdsl.errors import IllegalMove, KbdslError, RuleError, SetupError
from kbdsl.game import Game, Setup, State
from kbdsl.lang.unparse import unparse
from kbdsl.moves import Move
from kbdsl.resources import rules_path, shipped
from kbdsl.ruleset import RuleSet, load
from kbdsl.yamlio import schema, strict_validator

PROTOCOL = 1
MAX_LINE = 4_000_000  # bytes; a whole saved game is far smaller
MAX_GAMES = 256
MAX_TEXT = 4096  # characters in any one string of a request (a rule folder path is the longest)
MAX_BOT_MOVES = 100_000  # a safety net for "until": "over"
ERRORS = ("bad_request", "unknown_game", "illegal_move", "setup", "rules", "internal")

Json = dict[str, Any]


class RequestError(Exception):
    """A refused request: an error code, one sentence, and extra fields for the client."""

    def __init__(self, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra


def bad(message: str, **extra: Any) -> RequestError:
    return RequestError("bad_request", message, **extra)


# -- schema ------------------------------------------------------------------------------
@cache
def validator(name: str) -> jsonschema.protocols.Validator:
    """A validator for one definition of schemas/protocol.schema.json (`request`, `play_result`, ...)."""
    root = schema("protocol")
    if name not in root["$defs"]:
        raise KeyError(name)
    sub = {"$schema": root["$schema"], "$defs": root["$defs"], "$ref": f"#/$defs/{name}"}
    return strict_validator(sub)


@cache
def _save_validator() -> jsonschema.protocols.Validator:
    return strict_validator(schema("game"))


def _check(data: Any, check: jsonschema.protocols.Validator) -> None:
    """Refuse data that does not have the documented shape, naming the first problem."""
    error = jsonschema.exceptions.best_match(check.iter_errors(data))
    if error is not None:
        where = "/".join(map(str, error.absolute_path))
        raise bad(f"{where + ': ' if where else ''}{error.message}")


def _strings(data: Any) -> Iterator[str]:
    """Every string of a JSON value, keys included (without recursion: nesting may be deep)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            yield item


def _check_texts(data: Any) -> None:
    """Refuse a request with an over-long string (key or value) before anything parses one."""
    for item in _strings(data):
        if len(item) > MAX_TEXT:
            raise bad(f"a string of {len(item)} characters is longer than the {MAX_TEXT} a request may hold")


# -- what the server knows without a game ------------------------------------------------------


def _mandatory(rules: RuleSet) -> dict[str, Any] | None:
    """The turn's mandatory action: its count and text, and the grants usable instead of it."""
    if not rules.mandatory:
        return None
    out: dict[str, Any] = {"count": rules.mandatory[0].count, "text": unparse(rules.mandatory[0].decl)}
    if rules.instead:
        out["instead"] = list(rules.instead)
        out["text"] += "".join(f" or {name}" for name in rules.instead)
    return out


def describe(rules: RuleSet) -> Json:
    """Everything a front end shows about a rule set: titles, texts, letters, colours, setup choices."""

    def texts(decl: Any) -> list[str]:
        return list(decl.texts)

    pieces = [_piece(rules, k) for k in rules.pieces.values()]
    decks: dict[str, list[str]] = {}
    for c in rules.cards.values():
        if c.deck is not None:
            decks.setdefault(c.deck, []).append(c.name)
    return {
        "name": rules.name,
        "title": rules.title,
        "text": rules.text,
        "ref": rules.ref,
        "players": {"min": rules.players[0], "max": rules.players[1]},
        # Deprecated (protocol 1 keeps it): the supply of the piece whose role is "build".
        "settlements": next((k["supply"] for k in pieces if k["role"] == "build"), rules.settlements),
        "cards_in_play": rules.cards_in_play,
        "deck": dict(rules.deck),
        **_terrain_cards(rules),
        "mandatory": _mandatory(rules),
        "pieces": pieces,
        "terrains": [
            {
                "name": t.name,
                "title": t.title,
                "letter": t.letter,
                "color": t.color,
                "flags": sorted(t.flags),
                "texts": texts(t),
            }
            for t in rules.terrains.values()
        ],
        "tiles": [
            {
                "name": t.name,
                "title": t.title,
                "letter": t.letter,
                "supply": t.supply,
                "pool": t.pool,
                "texts": texts(t),
                "hand": rules.tile_hand(t.name),
                "action": (
                    {"kind": t.action.kind, "count": t.action.count, "text": unparse(t.action)}
                    if t.action is not None
                    else None
                ),
                "parts": [_part(name, a) for name, a in rules.actions.items() if rules.action_tile[name] == t.name],
            }
            for t in rules.tiles.values()
        ],
        "cards": [_card(c) for c in rules.cards.values()],
        "decks": decks,
        **({"setups": [_setup(rules, d, st) for d, _, st in rules.placements]} if rules.placements else {}),
        "scorings": [_card(c) for c in rules.scorings.values()],
        "boards": [
            {
                "name": b.name,
                "text": b.text,
                "grid": list(b.grid),
                "turnable": b.turnable,
                "sections": [_section(rules, s) for s in rules.sections_for(b.name)],
            }
            for b in rules.boards
        ],
        "options": [
            {"name": o.name, "default": o.default, "text": o.text, "ruling": o.ruling} for o in rules.options.values()
        ],
        "presets": [
            {
                "name": k,
                "text": p.get("text", ""),
                "sections": {b: list(s) for b, s in p.get("sections", {}).items()},
                "cards": list(p.get("cards", [])),
            }
            for k, p in rules.presets.items()
        ],
    }


def _setup(rules: RuleSet, d: Any, settings: Any) -> Json:
    """A `setup` declaration for front ends: the markers it puts at set-up."""
    return {
        "name": d.name,
        "title": d.title,
        "texts": list(d.texts),
        "marker": d.marker,
        "count": d.count,
        "on": unparse(d.on) if d.on is not None else "all",
        "per": settings.resolve(rules.option_defaults())["per"],
        "sections": list(d.sections),
    }


def _card(c: Any) -> Json:
    return {
        "name": c.name,
        "title": c.title,
        "texts": list(c.texts),
        "score": unparse(c.score) if c.score else None,
        "deck": c.deck,
    }


def _piece(rules: RuleSet, k: Any) -> Json:
    """A kind of piece: what places it (`build`, tiles, or nobody's shared stock), its supply and settings."""
    role = "neutral" if k.name in rules.neutral else "build" if k.name == rules.piece_kind else "tile"
    supply = rules.neutral[k.name] if role == "neutral" else rules.kinds.get(k.name, rules.settlements)
    return {
        "name": k.name,
        "title": k.title,
        "owner": "none" if role == "neutral" else "player",
        "role": role,
        "supply": supply,
        "glyph": k.glyph,
        "texts": list(k.texts),
        "settings": [
            {"key": st.key, "value": st.value, "when": unparse(st.when) if st.when is not None else None}
            for st in k.settings
            if st.key != "owner"
        ],
    }


def _part(name: str, a: Any) -> Json:
    """One named action of a tile (`tile.verb` for a part of a choice or what follows `then`)."""
    text = unparse(replace(a.decl, then=None))  # each part on its own: what follows is a part too
    return {"name": name, "kind": a.kind, "count": a.count, "up_to": a.up_to, "piece": a.piece, "text": text}


def _terrain_cards(rules: RuleSet) -> Json:
    """The deck's cards of several choices, when the rule set has any (the key is left out otherwise)."""
    if not rules.faces:
        return {}
    decls = {d.name: d for d in rules.face_settings.values() for d in [d.decl] if d is not None}
    return {
        "terrain_cards": [
            {
                "name": name,
                "title": decls[name].title if name in decls else name,
                "texts": list(decls[name].texts) if name in decls else [],
                "choices": [{"terrain": t, "count": n} for t, n in faces],
            }
            for name, faces in rules.faces.items()
        ]
    }


def _section(rules: RuleSet, name: str) -> Json:
    s = rules.sections[name]
    return {
        "name": s.name,
        "title": s.title,
        "texts": list(s.texts),
        "deals": s.deals,
        "grid": ["".join(cell.letter for cell in row) for row in s.rows],
    }


def board(state: State) -> Json:
    """The hex graph for drawing: every hex with its attributes and neighbours, the boards, lines and sectors."""
    g = state.game
    t, graph = g.tables, g.board.graph
    specs = {b.name: b for b in g.rules.boards}
    hexes = []
    for i, h in enumerate(t.ids):
        a = graph.nodes[h]
        hexes.append(
            {
                "id": h,
                "board": a["board"],
                "row": a["row"],
                "col": a["col"],
                "q": a["q"],
                "r": a["r"],
                "terrain": a["terrain"],
                "location": a["location"],
                "special": a["special"],
                "buildable": a["buildable"],
                "edge": a["edge"],
                "section": a["section"],
                "sector": a["sector"],
                "line": a["line"],
                "neighbours": [t.ids[j] for j in t.nbr[i]],
            }
        )
    boards = []
    for name, placed in g.setup.layout.to_json().items():
        cells = [x for x in hexes if x["board"] == name]
        boards.append(
            {
                "name": name,
                "primary": name == g.rules.primary_board.name,
                "grid": list(specs[name].grid),
                "sections": placed,
                "rows": 1 + max(x["row"] for x in cells),
                "cols": 1 + max(x["col"] for x in cells),
            }
        )
    return {
        "boards": boards,
        "hexes": hexes,
        "lines": [{"id": k, "hexes": t.names(m)} for k, m in zip(t.line_ids, t.lines, strict=True)],
        "sectors": [{"id": k, "hexes": t.names(m)} for k, m in zip(t.sector_ids, t.sectors, strict=True)],
    }


# -- the server ------------------------------------------------------------------------------
class Server:
    """Open games by id and the request handlers; one instance per connection."""

    def __init__(self, allow_paths: bool = True, max_games: int = MAX_GAMES):
        self.allow_paths = allow_paths  # False: only shipped rule sets (for untrusted clients)
        self.max_games = max_games
        self.games: dict[str, State] = {}
        self._opened = 0
        self._shipped: dict[str, RuleSet] = {}
        self.methods: dict[str, Callable[[Json], Json]] = {
            "hello": self.hello,
            "rules": self.rules,
            "new": self.new,
            "games": self.list_games,
            "state": self.state,
            "legal": self.legal,
            "targets": self.targets,
            "actions": self.actions,
            "play": self.play,
            "undo": self.undo,
            "bot": self.bot,
            "scores": self.scores,
            "board": self.board,
            "save": self.save,
            "load": self.load,
            "close": self.close,
        }

    # -- framing -------------------------------------------------------------------------
    def handle_line(self, line: str | bytes) -> str | None:
        """One line in, one line out (None for a blank line, which is ignored)."""
        if len(line) <= MAX_LINE and not line.strip():
            return None
        try:
            request = parse(line)
        except RequestError as e:
            return _dump(_error(None, e))
        return _dump(self.handle(request))

    def handle(self, request: Any) -> Json:
        """Answer one request (a parsed JSON value); never raises.

        A request is a transaction: methods never change a State in place (they play on clones
        and put the result in `games`), so restoring `games` and the id counter on any error
        leaves the server exactly as it was before a refused request."""
        rid = request_id(request)
        before = dict(self.games), self._opened
        response = self._answer(request, rid)
        if not response["ok"]:
            self.games, self._opened = before
        return response

    def _answer(self, request: Any, rid: Any) -> Json:
        try:
            if not isinstance(request, dict):
                raise bad('a request is a JSON object such as {"cmd": "hello"}')
            cmd = request.get("cmd")
            if not isinstance(cmd, str) or cmd not in self.methods:
                raise bad(f"unknown cmd {cmd!r} (one of {', '.join(self.methods)})")
            _check_texts(request)
            _check(request, validator(f"{cmd}_request"))
            return {"id": rid, "ok": True, "result": self.methods[cmd](request)}
        except RequestError as e:
            return _error(rid, e)
        except IllegalMove as e:
            move = e.move.to_json() if isinstance(e.move, Move) else e.move
            return _error(
                rid, RequestError("illegal_move", f"illegal move: {e.reason}", reason=e.reason, rule=e.rule, move=move)
            )
        except SetupError as e:
            return _error(rid, RequestError("setup", str(e)))
        except RuleError as e:
            first = e.diagnostics[0].render(with_source=False)
            more = f" (and {len(e.diagnostics) - 1} more)" if len(e.diagnostics) > 1 else ""
            return _error(
                rid,
                RequestError(
                    "rules",
                    f"the rule set does not load: {first}{more}",
                    diagnostics=[d.to_json() for d in e.diagnostics],
                ),
            )
        except KbdslError as e:
            return _error(rid, bad(str(e)))
        except Exception as e:  # an engine bug must not kill the connection; the state is untouched (clones)
            return _error(rid, RequestError("internal", f"internal error: {type(e).__name__}: {e}"))

    # -- helpers ---------------------------------------------------------------------------
    def _rules(self, ref: str) -> RuleSet:
        """A shipped rule set by name (loaded once), else a rule folder path if paths are allowed."""
        if ref in shipped():
            if ref not in self._shipped:
                self._shipped[ref] = load(rules_path(ref))
            return self._shipped[ref]
        if not self.allow_paths:
            raise bad(f"unknown rule set {ref!r} (this server loads only shipped ones: {', '.join(shipped())})")
        try:
            return load(ref)
        except (OSError, ValueError) as e:
            raise bad(f"cannot read rule folder {ref!r}: {e}") from None

    def _state(self, req: Json) -> State:
        try:
            return self.games[req["game"]]
        except KeyError:
            open_ = ", ".join(self.games) or "none"
            raise RequestError("unknown_game", f"no open game {req['game']!r} (open: {open_})") from None

    def _open(self, state: State) -> str:
        if len(self.games) >= self.max_games:
            raise bad(f"{self.max_games} games are open; close one first")
        self._opened += 1
        gid = f"g{self._opened}"
        self.games[gid] = state
        return gid

    def _view(self, state: State, req: Json) -> Json:
        """The view of the seat named by "player" ("current": the player to move), else the public view."""
        who = req.get("player")
        if who == "current":
            who = state.current
        if who is not None:
            self._check_seat(state, who)
        return state.view(who)

    @staticmethod
    def _check_seat(state: State, who: Any) -> None:
        if who not in ("current", None) and not 0 <= who < state.players:
            raise bad(f"player {who} is not a seat of this game (0 to {state.players - 1})")

    # -- methods -------------------------------------------------------------------------
    def hello(self, req: Json) -> Json:
        if req.get("protocol", PROTOCOL) != PROTOCOL:
            raise bad(f"this server speaks protocol {PROTOCOL}, not {req['protocol']}", protocol=PROTOCOL)
        return {
            "protocol": PROTOCOL,
            "kbdsl": __version__,
            "rules": list(shipped()),
            "folders": self.allow_paths,
            "bots": list(BOTS),
            "methods": list(self.methods),
            "errors": list(ERRORS),
        }

    def rules(self, req: Json) -> Json:
        if "game" in req:
            return describe(self._state(req).game.rules)
        return describe(self._rules(req.get("rules", "base")))

    def new(self, req: Json) -> Json:
        rules = self._rules(req.get("rules", "base"))
        game = Game.new(
            rules,
            req["players"],
            req.get("sections"),
            req.get("cards"),
            req.get("seed"),
            req.get("options"),
            req.get("preset"),
        )
        state = game.new_state()
        view = self._view(state, req)
        return {"game": self._open(state), "state": view}

    def list_games(self, req: Json) -> Json:
        return {
            "games": [
                {"game": gid, "rules": s.game.rules.ref, "players": s.players, "turn": s.turn, "over": s.over}
                for gid, s in self.games.items()
            ]
        }

    def state(self, req: Json) -> Json:
        return {"game": req["game"], "state": self._view(self._state(req), req)}

    def legal(self, req: Json) -> Json:
        state = self._state(req)
        action = req.get("action")
        if action not in (None, "end"):
            _known_action(state, action)
        moves = state.legal_moves()
        return {"game": req["game"], "moves": [m.to_json() for m in moves if action is None or m.do == action]}

    def targets(self, req: Json) -> Json:
        state = self._state(req)
        g, action = state.game, req["action"]
        _known_action(state, action)
        frm = req.get("from")
        if frm is not None:
            try:
                frm = g.board.hex(frm)
            except SetupError as e:
                raise bad(str(e)) from None
        out: Json = {"game": req["game"], "action": action}
        if action != "build" and g.rules.actions[action].kind == "move":
            out["sources"] = state.sources(action)
        if frm is not None:
            out["from"] = frm
        out["targets"] = state.targets(action, frm)
        return out

    def actions(self, req: Json) -> Json:
        """The actions of the player to move (build, an unfinished tile action, each held tile's actions
        as moves name them, end): usable now, or why not; and the moves of this turn that `undo` may
        take back."""
        state = self._state(req)
        legal = {m.do for m in state.legal_moves()}
        entries = state.game.rules.entries
        pending = [state.game.kinds[state.pending]] if state.pending_left else []
        tiles = [a for t in dict.fromkeys(x.kind for x in state.tiles[state.current]) for a in entries.get(t, ())]
        granted = [a for t in state.granted(state.current) for a in entries.get(t, ())] if state.game.grants else []
        names = list(dict.fromkeys(["build", *pending, *tiles, *granted, "end"]))
        return {
            "game": req["game"],
            "player": state.current,
            "actions": [
                {"action": n, "usable": n in legal, "reason": None if n in legal else _why_not(state, n)} for n in names
            ],
            "undoable": [m.to_json() for m in undoing.undoable(state)],
        }

    def undo(self, req: Json) -> Json:
        """Take back the last move of the turn, while no hidden card has been drawn since (kbdsl.undo)."""
        state = self._state(req)
        moves = undoing.undoable(state)
        before = undoing.undo(state)  # a new state: the open game is replaced only below
        view = self._view(before, req)
        self.games[req["game"]] = before
        return {"game": req["game"], "undone": moves[-1].to_json(), "state": view}

    def play(self, req: Json) -> Json:
        state = self._state(req)
        self._check_seat(state, req.get("player"))  # refuse before playing anything
        trial = state.clone()  # atomic even if the engine failed half-way
        events = trial.play(req["move"])
        move = trial.game.decode(trial.log[-1]).to_json()
        out = {
            "game": req["game"],
            "played": [{"player": state.current, "move": move, "events": events}],
            "state": self._view(trial, req),
        }
        self.games[req["game"]] = trial  # committed last, once nothing can fail
        return out

    def bot(self, req: Json) -> Json:
        state = self._state(req)
        name, until = req.get("bot", "random"), req.get("until", "move")
        if name not in BOTS:
            raise bad(f"unknown bot {name!r} (one of {', '.join(BOTS)})")
        self._check_seat(state, req.get("player"))
        if state.over:
            raise RequestError("illegal_move", "illegal move: the game is over", reason="the game is over", rule="")
        seed = req.get("seed", state.game.setup.seed)
        trial = state.clone()
        played = []
        while not trial.over and len(played) < MAX_BOT_MOVES:
            p = trial.current
            # Seeded from the position, not from earlier requests: same position, same bot, same move.
            code = make_bot(name, f"{seed}:{p}:{len(trial.log)}").choose(trial)
            move = trial.game.decode(code)
            played.append({"player": p, "move": move.to_json(), "events": trial.play(move)})
            if until == "move" or (until == "turn" and move.do == "end"):
                break
        out = {"game": req["game"], "played": played, "state": self._view(trial, req)}
        self.games[req["game"]] = trial  # committed last, once nothing can fail
        return out

    def scores(self, req: Json) -> Json:
        state = self._state(req)
        leaders = state.winners()
        return {
            "game": req["game"],
            "scores": state.scores(),
            "leaders": leaders,
            "over": state.over,
            "winners": leaders if state.over else None,
        }

    def board(self, req: Json) -> Json:
        return {"game": req["game"], **board(self._state(req))}

    def save(self, req: Json) -> Json:
        return {"game": req["game"], "save": self._state(req).to_json()}

    def load(self, req: Json) -> Json:
        """Rebuild a game by replaying the save's log from its setup, then check the saved fields agree.

        Replaying (rather than trusting State.from_json) means a save from a client can only
        ever give a position that real play reaches; rules, setup and log are enough."""
        data = req["save"]
        if "viewer" in data:
            raise bad("this is a player's view, not a save (a 'save' request gives one)")
        _check(data, _save_validator())
        rules = self._rules(data["rules"])
        game = Game(rules, Setup.from_json(data["setup"], rules))
        state = game.new_state()
        for i, move in enumerate(data["log"], 1):
            try:
                state.play(move)
            except IllegalMove as e:
                raise bad(f"move {i} of the save's log ({e.move}) is illegal: {e.reason}") from None
        actual = json.loads(json.dumps(state.to_json()))
        differ = sorted(k for k, v in data.items() if k not in ("rules", "setup") and actual.get(k) != v)
        if differ:
            raise bad(f"replaying the save's log does not reach the saved state (differs in {', '.join(differ)})")
        view = self._view(state, req)
        return {"game": self._open(state), "state": view}

    def close(self, req: Json) -> Json:
        self._state(req)
        del self.games[req["game"]]
        return {"game": req["game"], "closed": True}


def _known_action(state: State, action: str) -> None:
    """Refuse an action name that is neither the mandatory build nor a tile of the game."""
    try:
        state.check_action(action)
    except SetupError as e:
        raise bad(str(e)) from None


def _why_not(state: State, action: str) -> str:
    """Why `action` has no legal move now: the engine's refusal of a probe move (unless it is about the probe)."""
    if state.over:
        return "the game is over"
    g, p = state.game, state.current
    own = state.settlements(p)
    probe = own[0] if own else g.tables.ids[0]
    move: Json = {"do": action} if action == "end" or action in g.no_hex else {"do": action, "to": probe}
    if action in g.rules.actions and g.rules.actions[action].kind == "move":
        move["from"] = probe
    try:
        state.clone().play(move)
    except IllegalMove as e:
        if probe not in e.reason:
            return e.reason
    tile = g.rules.action_tile.get(action)
    title = g.rules.tiles[tile].title if tile is not None else "mandatory build"
    a = g.rules.actions.get(action)
    if a is not None and a.kind in ("move", "return") and a.piece in g.rules.kinds and not state.kind_own[a.piece][p]:
        verb = "move" if a.kind == "move" else "take back"
        return f"you have no {g.rules.pieces[a.piece].title.lower()} on the board for the {title} action to {verb}"
    return f"no hex is a legal target of the {title} action right now"


def request_id(request: Any) -> str | int | None:
    """The id a response echoes: the request's `id` if it is a string or an integer, else None."""
    rid = request.get("id") if isinstance(request, dict) else None
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def _error(rid: Any, e: RequestError) -> Json:
    return {"id": rid, "ok": False, "error": {"code": e.code, "message": e.message, **e.extra}}


def _dump(response: Json) -> str:
    return json.dumps(response, ensure_ascii=True, separators=(",", ":"))


def parse(line: str | bytes, limit: int = MAX_LINE) -> Any:
    """One message of UTF-8 JSON text as a request value (for every transport); RequestError if it is not.

    A trailing line ending is not part of the message: `limit` bytes may come before it. Duplicate
    keys in an object are refused rather than silently resolved."""
    raw = line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")
    raw = raw[:-1] if raw.endswith(b"\n") else raw
    raw = raw[:-1] if raw.endswith(b"\r") else raw
    if len(raw) > limit:
        raise bad(f"the line is longer than {limit} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("the line is not UTF-8 text") from None
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError) as e:
        raise bad(f"the line is not JSON ({e})") from None
    _no_surrogates(value)
    return value


def _no_surrogates(value: Any) -> None:
    """Refuse a string (key or value) holding a lone surrogate such as "\\ud800": JSON's escapes
    allow it, but it is no Unicode text, so nothing could answer with it (UTF-8 cannot encode it)."""
    for item in _strings(value):
        if not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise bad("a string holds a lone surrogate escape (such as \\ud800), which is not text") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> Json:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key {twice!r} appears twice in one object")
    return out


def serve(inp: BinaryIO, out: TextIO, server: Server | None = None) -> int:
    """Answer requests line by line until end of input; a bad line gets an error and the loop goes on."""
    server = server or Server()
    while True:
        raw = inp.readline(MAX_LINE + 2)  # the line and its ending ("\r\n" at most)
        if not raw:
            return 0
        if len(raw) == MAX_LINE + 2 and not raw.endswith(b"\n"):  # skip the rest of an over-long line
            while raw and not raw.endswith(b"\n"):
                raw = inp.readline(MAX_LINE + 2)
            reply = _dump(_error(None, bad(f"the line is longer than {MAX_LINE} bytes")))
        else:
            reply = server.handle_line(raw)
        if reply is not None:
            out.write(reply + "\n")
            out.flush()
